/// `textDocument/completion`: snippets whose trigger, title or body matches the typed prefix.
public enum CompletionHandler: RequestHandler {
    public static let method = "textDocument/completion"
    /// Completion searches the document's language only, so the first one needs only that language's files.
    public static let readsDocumentLanguageOnly = true

    public static func handle(_ params: CompletionParams, context: RequestContext) async throws -> CompletionList {
        guard let document = context.documents[params.textDocument.uri] else {
            return CompletionList(isIncomplete: false, items: [])
        }
        let builder = CompletionBuilder(
            document: document, library: context.library, encoding: context.positionEncoding, client: context.client,
            settings: context.settings, workspaceFolders: context.workspaceFolders, now: context.configuration.now())
        try context.checkCancellation()
        return builder.completions(at: params.position)
    }
}
