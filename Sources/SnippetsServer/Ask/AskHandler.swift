import SnippetsCore

/// `snippets/ask` (LSP Extension): answers a question from the library, grounded in snippets it retrieved.
///
/// Runs beside the in-order queue, so completions never wait on an ask; `$/cancelRequest` cancels its task, which
/// stops the pipeline between steps (and any model call). See `protocol/snippets-ask.md`.
public enum AskHandler: RequestHandler {
    public static let method = "snippets/ask"
    public static let runsConcurrently = true
    public static var serverCapabilities: ServerCapabilities { ServerCapabilities(experimental: ["snippetsAsk": true]) }

    public static func handle(_ params: AskParams, context: RequestContext) async throws -> AskResponse {
        // The `model` setting (or `serve --model-url`): shown `candidates` snippets unless the request says.
        var params = params
        if params.limit == nil, let configuration = context.settings.model { params.limit = configuration.candidates }
        let asking = ConfiguredAsk(
            model: context.settings.model, roleSetting: context.settings.modelRole, qualifier: context.qualifier,
            environment: context.configuration.environment, measuresModels: context.configuration.measuresModels,
            isLearning: context.isLearning, log: { await context.log($0) }, clientLog: context.configuration.logError)
        return try await answering(params, context: context) { request, snapshot, progress in
            try await asking.answer(request, over: snapshot, progress: progress)
        }
    }

    /// Answers `params` with `model` (nil: the deterministic pipeline) in the role `standing` gives it, without the
    /// qualifier or the gap log: tests pass doubles here.
    public static func answer(
        _ params: AskParams, context: RequestContext, model: (any AskModel)?, standing: ModelStanding = .unmeasured
    ) async throws -> AskResponse {
        try await answering(params, context: context) { request, snapshot, progress in
            try await ConfiguredAsk.pipeline(over: snapshot, model: model, standing: standing).answer(request, progress: progress)
        }
    }

    /// The request around an ask: its language from the open document, the snapshot in service, `$/progress` for a
    /// `workDoneToken`, and the reply in the client's position encoding. `ask` answers.
    private static func answering(
        _ params: AskParams, context: RequestContext,
        ask: (AskRequest, LibrarySnapshot, @escaping @Sendable (AskStage) async -> Void) async throws -> AskResult
    ) async throws -> AskResponse {
        let language = params.textDocument.flatMap { context.documents[$0.uri]?.languageID }
        let request = try params.request(language: language)
        let snapshot = context.library
        guard snapshot.generation > 0 else {
            // Neither "empty" nor "unreadable" would be true yet.
            throw ResponseError.requestFailed("snippets/ask: the snippet library is still loading; ask again in a moment")
        }
        let token = params.workDoneToken
        if let token {
            await context.notify(
                "$/progress", WorkDoneProgress(token: token, value: .init(kind: "begin", title: "Asking your snippets", cancellable: true)))
        }
        let result: AskResult
        do {
            result = try await ask(request, snapshot) { stage in
                if let token {
                    await context.notify("$/progress", WorkDoneProgress(token: token, value: .init(kind: "report", message: stage.message)))
                }
            }
        } catch {
            if let token { await context.notify("$/progress", WorkDoneProgress(token: token, value: .init(kind: "end", message: "Cancelled"))) }
            throw error
        }
        if let token { await context.notify("$/progress", WorkDoneProgress(token: token, value: .init(kind: "end"))) }
        return AskResponse(result, encoding: context.positionEncoding, library: snapshot.library)
    }
}
