import SnippetsCore

/// `codeAction/resolve`: computes the edit of an "Ask snippets: …" action (the ask runs only for the action the
/// user picks).
public enum CodeActionResolveHandler: RequestHandler {
    public static let method = "codeAction/resolve"
    /// Beside the in-order queue: resolving runs the ask, which may wait on a model.
    public static let runsConcurrently = true

    public static func handle(_ action: CodeAction, context: RequestContext) async throws -> CodeAction {
        try await AskAction.resolve(action, context: context)
    }
}
