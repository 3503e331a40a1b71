import SnippetsCore

/// `textDocument/codeAction`: "Ask snippets: …" on a marker line (`??` by default) or a selection, and "Save
/// selection as snippet" on a selection.
public enum CodeActionHandler: RequestHandler {
    public static let method = "textDocument/codeAction"
    public static var serverCapabilities: [String: JSONValue] {
        ["codeActionProvider": ["codeActionKinds": [.string(AskAction.kind), .string(SaveSelection.kind)], "resolveProvider": true]]
    }

    public static func handle(_ params: CodeActionParams, context: RequestContext) async throws -> [CodeAction] {
        guard let document = context.documents[params.textDocument.uri] else { return [] }
        var actions: [CodeAction] = []
        if let target = AskTarget.find(
            in: document, range: params.range, marker: context.settings.askMarker, encoding: context.positionEncoding)
        {
            actions.append(try await AskAction.codeAction(for: target, document: document, context: context))
        }
        if let save = SaveSelection.codeAction(document: document, range: params.range, context: context) {
            actions.append(save)
        }
        return actions
    }
}
