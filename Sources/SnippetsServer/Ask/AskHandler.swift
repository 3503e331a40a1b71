import SnippetsCore

/// `snippets/ask` (LSP Extension): answers a question from the library, grounded in snippets it retrieved.
///
/// Runs beside the in-order queue, so completions never wait on an ask; `$/cancelRequest` cancels its task, which
/// stops the pipeline between steps (and any model call). See `protocol/snippets-ask.md`.
public enum AskHandler: RequestHandler {
    public static let method = "snippets/ask"
    public static let runsConcurrently = true
    public static var serverCapabilities: [String: JSONValue] { ["experimental": ["snippetsAsk": true]] }

    public static func handle(_ params: AskParams, context: RequestContext) async throws -> AskResponse {
        let language = params.textDocument.flatMap { context.documents[$0.uri]?.languageID }
        let request = try params.request(language: language)
        let snapshot = context.library
        let pipeline = AskPipeline(
            library: snapshot.library, index: snapshot.index ?? TokenIndex(library: snapshot.library), model: nil)
        let token = params.workDoneToken
        if let token {
            await context.notify(
                "$/progress", WorkDoneProgress(token: token, value: .init(kind: "begin", title: "Asking your snippets", cancellable: true)))
        }
        let result: AskResult
        do {
            result = try await pipeline.answer(request) { stage in
                if let token {
                    await context.notify("$/progress", WorkDoneProgress(token: token, value: .init(kind: "report", message: stage.message)))
                }
            }
        } catch {
            if let token { await context.notify("$/progress", WorkDoneProgress(token: token, value: .init(kind: "end", message: "Cancelled"))) }
            throw error
        }
        if let token { await context.notify("$/progress", WorkDoneProgress(token: token, value: .init(kind: "end"))) }
        return AskResponse(result, encoding: context.positionEncoding)
    }
}
