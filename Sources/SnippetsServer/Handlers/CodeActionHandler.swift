import SnippetsCore

/// `textDocument/codeAction`: "Ask snippets: …" on a marker line (`??` by default) or a selection, and "Save
/// selection as snippet" on a selection.
public enum CodeActionHandler: RequestHandler {
    public static let method = "textDocument/codeAction"
    /// Beside the in-order queue: for a client that cannot resolve an action's edit the ask (and its model call)
    /// runs here, and completions must not wait for it. It sees the documents as of its arrival.
    public static let runsConcurrently = true
    public static var serverCapabilities: ServerCapabilities {
        ServerCapabilities(codeActionProvider: CodeActionOptions(codeActionKinds: [AskAction.kind, SaveSelection.kind], resolveProvider: true))
    }

    public static func handle(_ params: CodeActionParams, context: RequestContext) async throws -> [CodeAction] {
        guard let document = context.documents[params.textDocument.uri] else { return [] }
        var actions: [CodeAction] = []
        if let target = AskTarget.find(
            in: document, range: params.range, marker: context.settings.askMarker, encoding: context.positionEncoding)
        {
            // An ask that fails costs its own action only: "Save selection as snippet" is still offered.
            do {
                actions.append(try await AskAction.codeAction(for: target, document: document, context: context))
            } catch {
                let failure = ResponseError.from(error)
                if failure.code == ResponseError.requestCancelled.code { throw failure }
                await context.log("no ask action: \(failure.message)")
            }
        }
        if let save = SaveSelection.codeAction(document: document, range: params.range, context: context) {
            actions.append(save)
        }
        return actions
    }
}
