import SnippetsCore

/// `snippets/snippetText` (LSP Extension): a snippet's text by id, rendered for the document it goes into, so an
/// editor can insert what `snippets/ask` named. See `protocol/snippets-commands.md`.
public enum SnippetTextHandler: RequestHandler {
    public static let method = "snippets/snippetText"
    /// Beside the queue: rendering runs a library's transforms (bounded by `RegexBudget`, still CPU), and it only
    /// reads, so a completion typed after it need not wait for it.
    public static let runsConcurrently = true

    public static func handle(_ params: SnippetTextParams, context: RequestContext) async throws -> SnippetTextResult {
        guard let snippet = context.library.library.snippet(withID: SnippetID(rawValue: params.id)) else {
            throw ResponseError.invalidParams("snippets/snippetText: no snippet with id '\(params.id)' (the library changed since; ask again)")
        }
        let document = params.textDocument.flatMap { context.documents[$0.uri] }
        let variables = SnippetRendering.variables(document: document, position: params.position, context: context)
        let body = SnippetBody.parse(snippet.body).body
        let plan = SnippetRenderPlan(engine: context.client.namedSnippetEngine, settings: context.settings)
        let resolve: (String) -> String? = plan.serverResolvesVariables ? variables.resolver : { _ in nil }
        // The client inserts `snippet` through its engine. For one the server does not know, which may be
        // yasnippet, what yasnippet would run is escaped as for yasnippet (a stray backslash at worst elsewhere).
        var engine = plan.engine
        if engine.mayEvaluateCode { engine.evaluatesCode = true }
        var rendered = body.insertion(for: engine, resolving: resolve)
        if !rendered.isSnippet { rendered.text = SnippetBody.snippetText(ofPlainText: rendered.text) }
        return SnippetTextResult(
            id: snippet.id.rawValue, title: snippet.title, snippet: rendered.text,
            text: body.plainText(resolving: variables.resolver),
            location: LSPLocation(sourceLocation: snippet.location, in: context.positionEncoding))
    }
}
