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
        guard let configuration = context.settings.model else { return try await answer(params, context: context, model: nil) }
        var params = params
        if params.limit == nil { params.limit = configuration.candidates }
        // The model's role: forced by `model.role`, else measured on this library (advisory until then). Never waits.
        let qualifier = context.qualifier
        let standing = await qualifier.standing(
            of: configuration, setting: context.settings.modelRole, snapshot: context.library,
            environment: context.configuration.environment, measuring: context.configuration.measuresModels)
        await qualifier.askStarted()
        do {
            let (response, check) = try await answering(
                params, context: context, model: ModelOptions.model(
                    for: configuration, environment: context.configuration.environment, log: context.configuration.logError),
                standing: standing)
            // A trusted model's answer the server could verify counts toward keeping its trust.
            await qualifier.askEnded(in: standing, check: check)
            return response
        } catch {
            await qualifier.askEnded()
            throw error
        }
    }

    /// Answers `params` with `model` (nil: the deterministic pipeline) in the role `standing` gives it. The model
    /// client, when one is configured, is passed here; tests pass doubles.
    public static func answer(
        _ params: AskParams, context: RequestContext, model: (any AskModel)?, standing: ModelStanding = .unmeasured
    ) async throws -> AskResponse {
        try await answering(params, context: context, model: model, standing: standing).response
    }

    /// `answer`, with how a trusted model's reply compared with an answer the server knows (`AskResult.modelCheck`).
    static func answering(
        _ params: AskParams, context: RequestContext, model: (any AskModel)?, standing: ModelStanding
    ) async throws -> (response: AskResponse, check: ModelCheck?) {
        let language = params.textDocument.flatMap { context.documents[$0.uri]?.languageID }
        let request = try params.request(language: language)
        let snapshot = context.library
        guard snapshot.generation > 0 else {
            // Neither "empty" nor "unreadable" would be true yet.
            throw ResponseError.requestFailed("snippets/ask: the snippet library is still loading; ask again in a moment")
        }
        let pipeline = pipeline(over: snapshot, model: model, standing: standing)
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
        if GapLog.isGap(result), context.isLearning,
            let problem = GapLog(environment: context.configuration.environment).record(request.question)
        {
            await context.log(problem)
        }
        return (AskResponse(result, encoding: context.positionEncoding, library: snapshot.library), result.modelCheck)
    }

    /// The ask pipeline over `snapshot` with `model` in the role `standing` gives it, quotes read from the disk: the
    /// one pipeline `snippets/ask` and `snippets-lsp mcp`'s `ask_snippets` both answer with.
    static func pipeline(over snapshot: LibrarySnapshot, model: (any AskModel)?, standing: ModelStanding) -> AskPipeline {
        AskPipeline(
            library: snapshot.library, index: snapshot.index ?? TokenIndex(library: snapshot.library), facts: snapshot.askFacts,
            model: model, modelStanding: standing, learned: snapshot.learned,
            sources: FileSystemSnippetSources(fileSystem: DiskFileSystem()))
    }
}
