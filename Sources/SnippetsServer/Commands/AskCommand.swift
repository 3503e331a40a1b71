import Foundation
import SnippetsCore
import SnippetsModelClient

/// `snippets-lsp ask`: answers a question from the library, the same way `snippets/ask` does.
public enum AskCommand: SnippetsCommand {
    public static let name = "ask"
    public static let summary = "Answer a question from your snippets, citing only snippets that exist"
    /// `ask`'s own options; the model's follow them.
    static let ownOptions = LibraryOptions.options + CommandOptions([
        CommandOption(
            "--language", value: .text(placeholder: "ID"),
            help: "Search only snippets for this language (plus global ones), e.g. `swift`."),
        CommandOption(
            "--limit", value: .wholeNumber(placeholder: "N", minimum: 1, maximum: AskRequest.maximumLimit),
            help: "How many candidate snippets to look at (1 to \(AskRequest.maximumLimit), default "
                + "\(AskRequest.defaultLimit))."),
        CommandOption.json(
            "Print exactly the `snippets/ask` result (protocol/snippets-ask.md), offsets in UTF-16."),
        CommandOption.noLearning(
            "Ignore learned words (`snippets-lsp learn`) and do not log an unanswered question in the gap log "
                + "(`snippets-lsp gaps`)."),
    ])
    public static let options = ownOptions + ModelOptions.options
    public static let help = """
        \(CommandOptions.usage("ask", arguments: "QUESTION", [ownOptions, ModelOptions.options]))

        Searches the snippet library for the question's words and names the snippets that answer it, each with
        `file:line`. Every title in the answer is a real snippet's exact title; when nothing fits it says so.
        Several words after `ask` are joined into one question; after `--` every word is the question's, even
        one that looks like an option (`snippets-lsp ask -- what does --help print`).

        Options:
        \(ownOptions.helpText())

        A language model (optional; every answer is checked the same way with or without one):
        \(ModelOptions.help)
        With --model-role auto, ask takes the role measured on this library revision by `snippets-lsp doctor` or
        the server (kept in $XDG_CACHE_HOME/snippets-lsp/qualification); until one is, the model is advisory.

        Exit status: 0 when the library was searched (answered, fallback or noMatch); 1 when the library is empty
        (emptyLibrary) or could not be read (libraryUnreadable); 2 for a usage error (no question, a question over
        1,000 characters, a bad option).
        """

    public static func run(_ context: CommandContext) async -> Int32 {
        let arguments: ParsedArguments
        let request: AskRequest
        let modelConfiguration: ModelConfiguration?
        let roleSetting: ModelRoleSetting
        do {
            arguments = try options.parse(context.arguments)
            guard !arguments.positionals.isEmpty else { throw ArgumentError.missingArgument("QUESTION") }
            modelConfiguration = try ModelOptions.configuration(from: arguments)
            roleSetting = try ModelOptions.role(from: arguments)
            request = AskRequest(
                question: arguments.positionals.joined(separator: " "), language: arguments.value("--language"),
                limit: try arguments.wholeNumber("--limit")
                    ?? modelConfiguration?.candidates ?? AskRequest.defaultLimit)
            if let problem = request.problem { throw ArgumentError.invalidValue("QUESTION", "…", problem) }
        } catch let error as ArgumentError {
            context.printError("snippets-lsp ask: \(error)\n\n\(help)")
            return 2
        } catch {
            return 2
        }
        let paths = LibraryOptions.paths(from: arguments, environment: context.environment)
        let library = paths.load()
        for warning in ModelOptions.warnings(for: modelConfiguration, environment: context.environment) {
            context.printError("snippets-lsp ask: \(warning)")
        }
        let learning = !arguments.isLearningOff
        let learned = learning ? LearnedWordsStore.load(paths: paths.paths, library: library) : .none
        let snapshot = LibrarySnapshot(library: library, index: TokenIndex(library: library), generation: 1, learned: learned)
        MeaningSetup.prepare(
            snapshot.askFacts, library: library, environment: context.environment, budget: MeaningSetup.commandLineBudget)
        let printError: @Sendable (String) -> Void = { line in context.printError("snippets-lsp ask: \(line)") }
        let asking = ConfiguredAsk(
            model: modelConfiguration, roleSetting: roleSetting, qualifier: nil, environment: context.environment,
            measuresModels: false, isLearning: learning, log: { printError($0) }, clientLog: printError)
        let result: AskResult
        do {
            result = try await asking.answer(request, over: snapshot)
        } catch {
            context.printError("snippets-lsp ask: cancelled")
            return 1
        }
        if arguments.wantsJSON {
            context.printJSON(AskResponse(result, encoding: .utf16, library: library).jsonText())
        } else {
            context.print(AskAnswerText.text(for: result, library: library))
        }
        return exitStatus(for: result.status)
    }

    /// 0 when the library was searched, 1 when it could not be.
    static func exitStatus(for status: AskStatus) -> Int32 {
        switch status {
        case .answered, .fallback, .noMatch: 0
        case .emptyLibrary, .libraryUnreadable: 1
        }
    }

}
