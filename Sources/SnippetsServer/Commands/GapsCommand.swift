import Foundation
import SnippetsCore

/// `snippets-lsp gaps`: the questions your library could not answer, most asked first.
public enum GapsCommand: SnippetsCommand {
    public static let name = "gaps"
    public static let summary = "List the questions ask could not answer (snippets you have not written yet)"
    public static let options = CommandOptions([
        CommandOption.json(
            "Print the gaps as JSON: {\"gaps\": [{\"question\", \"count\", \"lastAsked\"}]}."),
        CommandOption("--clear", help: "Empty the log."),
    ])
    public static let help = """
        \(CommandOptions.usage("gaps", [options]))

        Every question answered with noMatch (in an editor or with `snippets-lsp ask`) is counted in a local log,
        $XDG_STATE_HOME/snippets-lsp/gaps.json (by default ~/.local/state/snippets-lsp/gaps.json). It stays on
        this machine: it is never written inside your library and never sent anywhere. With learning off (the
        setting `learning: false`, `--no-learning`) nothing is logged. A question you teach (`snippets-lsp learn`,
        inserting a snippet from its answer, or saving a snippet for it) leaves the log.

        Options:
        \(options.helpText())
        """

    public static func run(_ context: CommandContext) async -> Int32 {
        let arguments: ParsedArguments
        do {
            arguments = try options.parse(context.arguments)
            guard arguments.positionals.isEmpty else { throw ArgumentError.tooManyArguments(arguments.positionals) }
        } catch {
            context.printError("snippets-lsp gaps: \(error)\n\n\(help)")
            return 2
        }
        let log = GapLog(environment: context.environment)
        if arguments.has("--clear") {
            if let problem = log.clear() {
                context.printError("snippets-lsp gaps: \(problem)")
                return 1
            }
            context.print("Cleared the gap log (\(log.path)).")
            return 0
        }
        let gaps = log.gaps()
        if arguments.wantsJSON {
            context.printJSON(encoding: ["gaps": gaps])
            return 0
        }
        if gaps.isEmpty {
            context.print("No gaps logged: every question asked so far was answered (log: \(log.path)).")
            return 0
        }
        for gap in gaps {
            context.print("\(String(gap.count).leftPadded(to: 4))  \(gap.question)")
        }
        return 0
    }
}

extension String {
    /// This string with spaces in front, to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
