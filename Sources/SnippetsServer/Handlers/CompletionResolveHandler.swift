import SnippetsCore

/// `completionItem/resolve`: adds the Markdown documentation (preview, description, `file:line`).
public enum CompletionResolveHandler: RequestHandler {
    public static let method = "completionItem/resolve"
    /// Beside the queue: rendering runs a library's transforms (bounded by `RegexBudget`, still CPU), and it only
    /// reads, so a completion typed after it need not wait for it.
    public static let runsConcurrently = true

    public static func handle(_ item: CompletionItem, context: RequestContext) async throws -> CompletionItem {
        guard let data = item.data,
            let snippet = context.library.library.snippet(withID: SnippetID(rawValue: data.snippetID))
        else { return item }
        let language = data.uri.flatMap { context.documents[$0]?.languageID } ?? snippet.scopes.first
        var resolved = item
        resolved.documentation = CompletionBuilder.documentation(for: snippet, language: language)
        return resolved
    }
}
