import Foundation
import SnippetsCore

/// `snippets-lsp embed`: embeds the whole library for meaning search now, as the language server does in the
/// background, so `ask` and `mcp` match by meaning over all of it from their first question.
public enum EmbedCommand: SnippetsCommand {
    public static let name = "embed"
    public static let summary = "Embed every snippet for asking by meaning now, rather than a few seconds per ask"
    public static let options = LibraryOptions.options
    public static let help = """
        \(CommandOptions.usage("embed", [options]))

        Encodes every snippet the meaning cache ($XDG_CACHE_HOME/snippets-lsp/meaning) does not hold yet, then
        calibrates meaning's thresholds on the library. `ask` on the command line spends at most 3 s encoding before
        it answers and names nothing by meaning until the whole library is embedded; after `embed` every ask
        matches by meaning over all of it. The language server and `mcp` embed in the background by themselves.
        Encoding takes 10 to 20 ms a snippet (friendly-snippets' 6,168: 100 s); progress goes to stderr.
        Running it again encodes only snippets added or edited since.

        Options:
        \(options.helpText())

        Exit status: 0 when every snippet is embedded; 1 when meaning search is off (no encoder file, or
        SNIPPETS_ENCODER=off) or the library holds no snippets; 2 for a usage error.
        """

    public static func run(_ context: CommandContext) async -> Int32 {
        guard let arguments = parsedOptionsOnly(context) else { return 2 }
        let library = LibraryOptions.paths(from: arguments, environment: context.environment).load()
        guard !library.snippets.isEmpty else {
            context.printError("snippets-lsp embed: the library holds no snippets (`snippets-lsp doctor` says why)")
            return 1
        }
        let (service, offReason) = MeaningSetup.service(environment: context.environment)
        guard let service else {
            context.printError("snippets-lsp embed: \(offReason ?? MeaningSetup.offReason)")
            return 1
        }
        let facts = AskLibraryFacts(library: library)
        let started = ContinuousClock.now
        var reported: Int?
        let encoded = service.embedNow(library: library, facts: facts) { done, total in
            // Not the snippets found in the cache (the first call); then about every tenth of the library, and the end.
            guard let last = reported else {
                reported = done
                return
            }
            guard done == total || done - last >= max(total / 10, MeaningEmbedding.batchSize) else { return }
            reported = done
            context.printError("snippets-lsp embed: \(done) of \(total) snippets embedded")
        }
        let status = facts.meaning.status
        guard status.state == .ready else {
            context.printError("snippets-lsp embed: \(status.note ?? "meaning search is off")")
            return 1
        }
        let elapsed = String(format: "%.1f", (ContinuousClock.now - started).inSeconds)
        let thresholds = facts.meaning.thresholds
        let calibration = thresholds.measured == nil
            ? "the default thresholds (a library under \(MeaningCalibration.minimumSnippets) snippets is not calibrated)"
            : String(format: "thresholds calibrated on the library: similarity %.2f, lead %.2f", thresholds.similarity, thresholds.margin)
        context.print(
            "Meaning search covers all \(status.total) snippets: \(encoded) encoded now, \(status.total - encoded) from the cache "
                + "(\(elapsed) s); \(calibration).")
        return 0
    }
}
