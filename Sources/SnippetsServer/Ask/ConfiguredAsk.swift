import SnippetsCore
import SnippetsModelClient

/// The one "ask with the configured model": `snippets/ask`, MCP's `ask_snippets` and the command line's `ask` all
/// answer through it, so what surrounds the pipeline is written once.
///
/// - The model's role: forced by `model.role`, else measured on this library (`ModelQualifier.standing`: advisory
///   until measured, never waited for). Without a qualifier (the command line: no process outlives a measurement),
///   the role a server measured and kept (`ModelQualifier.counts`), else advisory.
/// - The qualifier's bracket: probes wait while an ask runs, and a trusted model's answer the server could verify
///   counts toward keeping its trust (`askEnded(in:check:)`).
/// - The pipeline over the snapshot, quotes read from the disk (`pipeline(over:model:standing:)`).
/// - The gap log: a question nothing answered is remembered when learning is on (`GapLog`).
///
/// `eval` runs a battery's probes through `pipeline(over:model:standing:)` with its judge around it.
struct ConfiguredAsk {
    /// The `model` setting; nil: the deterministic pipeline alone.
    var model: ModelConfiguration?
    var roleSetting: ModelRoleSetting
    /// Nil on the command line: the role is then read from what a server kept, and nothing is measured.
    var qualifier: ModelQualifier?
    /// The process environment (a model's key variable, the gap log's and the qualification cache's folders).
    var environment: [String: String]
    /// Whether an unmeasured model is measured in the background (`serve` and `mcp` do; in-process tests may not).
    var measuresModels: Bool
    var isLearning: Bool
    /// Where the gap log's problems go (a gap log that cannot be written).
    var log: @Sendable (String) async -> Void
    /// Where the model client's lines go.
    var clientLog: @Sendable (String) -> Void
    /// Where what a measurement and the checks find (a demotion included) goes.
    var measurementLog: @Sendable (String) async -> Void = { _ in }

    /// Answers `request` over `snapshot`, which is in service (generation > 0). `progress` hears each stage.
    func answer(
        _ request: AskRequest, over snapshot: LibrarySnapshot, progress: @Sendable (AskStage) async -> Void = { _ in }
    ) async throws -> AskResult {
        let result: AskResult
        if let model {
            let client = OpenAICompatibleModel(configuration: model, environment: environment, log: clientLog)
            if let qualifier {
                let standing = await qualifier.standing(
                    of: model, setting: roleSetting, snapshot: snapshot, environment: environment, measuring: measuresModels,
                    log: measurementLog)
                result = try await Self.bracketed(by: qualifier, standing: standing) {
                    try await Self.pipeline(over: snapshot, model: client, standing: standing).answer(request, progress: progress)
                }
            } else {
                let standing = await keptStanding(of: model, over: snapshot)
                result = try await Self.pipeline(over: snapshot, model: client, standing: standing).answer(request, progress: progress)
            }
        } else {
            result = try await Self.pipeline(over: snapshot, model: nil, standing: .unmeasured).answer(request, progress: progress)
        }
        if isLearning, GapLog.isGap(result), let problem = GapLog(environment: environment).record(request.question) {
            await log(problem)
        }
        return result
    }

    /// The role `roleSetting` gives `model` on `snapshot`'s library from what a server measured and kept (nothing
    /// is measured here): forced, else the kept measurement or demotion, else advisory.
    private func keptStanding(of model: ModelConfiguration, over snapshot: LibrarySnapshot) async -> ModelStanding {
        guard roleSetting == .auto else { return .resolving(roleSetting, qualification: nil) }
        let index = snapshot.index ?? TokenIndex(library: snapshot.library)
        let known = await ModelQualifier.counts(
            of: model, library: snapshot.library, index: index, environment: environment, measuring: false)
        return .resolving(roleSetting, qualification: known.counts, demotedBy: known.demotion)
    }

    /// Runs `ask` between the qualifier's `askStarted` and `askEnded`, handing it the answer's check of a trusted
    /// model (nil when the ask threw).
    static func bracketed(
        by qualifier: ModelQualifier, standing: ModelStanding, _ ask: () async throws -> AskResult
    ) async throws -> AskResult {
        await qualifier.askStarted()
        do {
            let result = try await ask()
            await qualifier.askEnded(in: standing, check: result.modelCheck)
            return result
        } catch {
            await qualifier.askEnded()
            throw error
        }
    }

    /// The ask pipeline over `snapshot` with `model` in the role `standing` gives it, quotes read from the disk.
    static func pipeline(over snapshot: LibrarySnapshot, model: (any AskModel)?, standing: ModelStanding) -> AskPipeline {
        AskPipeline(
            library: snapshot.library, index: snapshot.index ?? TokenIndex(library: snapshot.library), facts: snapshot.askFacts,
            model: model, modelStanding: standing, learned: snapshot.learned,
            sources: FileSystemSnippetSources(fileSystem: DiskFileSystem()))
    }
}
