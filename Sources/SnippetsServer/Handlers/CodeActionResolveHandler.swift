import SnippetsCore

/// `codeAction/resolve`: computes the edit of an "Ask snippets: …" action (the ask runs only for the action the
/// user picks).
public enum CodeActionResolveHandler: RequestHandler {
    public static let method = "codeAction/resolve"

    public static func handle(_ action: CodeAction, context: RequestContext) async throws -> CodeAction {
        try await AskAction.resolve(action, context: context)
    }
}
