import Foundation
import SnippetsCore
import SnippetsModelClient

/// `snippets-lsp doctor`: what the server would read and use, and what is wrong with it: the answer to "I set it up
/// and nothing happens".
public enum DoctorCommand: SnippetsCommand {
    public static let name = "doctor"
    public static let summary = "Show which library, model and settings the server uses, and what is wrong"
    /// `doctor`'s own options; the model's follow them.
    static let ownOptions = LibraryOptions.options + CommandOptions([
        CommandOption(
            "--settings", value: .text(placeholder: "JSON"),
            help: "The settings the editor sends (`initializationOptions`, bare or under `snippets`), as a JSON object "
                + "or @FILE to read it from a file. Its `libraries` and `model` win, as in the server."),
        CommandOption.json(
            "Print one JSON object instead (keys sorted)."),
    ])
    public static let options = ownOptions + ModelOptions.options
    public static let help = """
        \(CommandOptions.usage("doctor", [ownOptions, ModelOptions.options]))

        Prints what the language server would use if an editor started it the same way, and every problem found:
          - the library paths, where each came from (--library, SNIPPETS_LIBRARY, the default directory or the
            editor's `libraries` setting), whether each exists, and how many snippets and files each holds;
          - the problems loading found (run `snippets-lsp check` for every one, with its line);
          - the language model behind ask: none, or its URL, whether it answers and its context size, and its
            role: measured on your library when it answers (a few dozen calls, once per library revision; kept in
            $XDG_CACHE_HOME/snippets-lsp/qualification) unless --model-role or `model.role` forces one;
          - every editor-facing setting in effect (defaults filled in, invalid values reported; the model's
            settings one by one) and the trigger characters the server advertises.

        Options:
        \(ownOptions.helpText())

        The language model, as `serve` takes it (the `model` setting overrides these):
        \(ModelOptions.help)

        Exit status: 0 when nothing is wrong, 1 when a library path is missing or unreadable, the library holds
        no snippets, a file has an error, a setting is invalid or the model does not answer; 2 for a usage error.
        """

    public static func run(_ context: CommandContext) async -> Int32 {
        let arguments: ParsedArguments
        let commandLineModel: ModelConfiguration?
        let commandLineRole: ModelRoleSetting
        var settingsJSON: JSONValue?
        do {
            arguments = try options.parse(context.arguments)
            if !arguments.positionals.isEmpty { throw ArgumentError.tooManyArguments(arguments.positionals) }
            commandLineModel = try ModelOptions.configuration(from: arguments)
            commandLineRole = try ModelOptions.role(from: arguments)
            if let text = arguments.value("--settings") {
                settingsJSON = try settings(from: text, environment: context.environment)
            }
        } catch {
            context.printError("snippets-lsp doctor: \(error)\n\n\(help)")
            return 2
        }
        let report = await DoctorReport.make(
            libraryFlags: arguments.values(LibraryOptions.library.name), settingsJSON: settingsJSON, commandLineModel: commandLineModel,
            commandLineRole: commandLineRole, environment: context.environment)
        if arguments.wantsJSON { context.printJSON(report.json()) } else { context.print(report.text()) }
        return report.problems.isEmpty ? 0 : 1
    }

    /// `--settings`: a JSON object, or `@FILE`.
    static func settings(from text: String, environment: [String: String]) throws(ArgumentError) -> JSONValue {
        var bytes = Array(text.utf8)
        if text.hasPrefix("@") {
            let path = LibraryPaths.absolute(String(text.dropFirst()), environment: environment)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .invalidValue("--settings", text, "a readable file (\(path) could not be read)")
            }
            bytes = Array(data)
        }
        guard let value = try? JSONValue.parse(bytes), value.objectValue != nil else {
            throw .invalidValue("--settings", text.count > 60 ? String(text.prefix(59)) + "…" : text, "a JSON object or @FILE")
        }
        return value
    }
}
