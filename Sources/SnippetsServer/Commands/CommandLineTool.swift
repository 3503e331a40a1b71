import Foundation

/// Where a command writes. Commands never print directly, so tests can capture both streams.
public struct CommandOutput: Sendable {
    public var standardOutput: @Sendable (String) -> Void
    public var standardError: @Sendable (String) -> Void

    public init(standardOutput: @escaping @Sendable (String) -> Void, standardError: @escaping @Sendable (String) -> Void) {
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// The process's real stdout and stderr.
    public static let process = CommandOutput(
        standardOutput: { text in FileHandle.standardOutput.write(Data(text.utf8)) },
        standardError: { text in FileHandle.standardError.write(Data(text.utf8)) }
    )
}

/// The environment a command runs in: its arguments (without the program name), variables and output streams.
public struct CommandContext: Sendable {
    public var arguments: [String]
    public var environment: [String: String]
    public var output: CommandOutput

    public init(arguments: [String], environment: [String: String], output: CommandOutput) {
        self.arguments = arguments
        self.environment = environment
        self.output = output
    }

    /// Prints a line for a person: control characters and bidi controls escaped (`TerminalText`).
    public func print(_ text: String) { output.standardOutput(TerminalText.escaped(text) + "\n") }
    /// Prints a line to stderr, escaped as `print` does.
    public func printError(_ text: String) { output.standardError(TerminalText.escaped(text) + "\n") }
    /// Prints JSON as its encoder wrote it (controls inside strings are already `\u` escapes).
    public func printJSON(_ text: String) { output.standardOutput(text + "\n") }

    /// Prints `value` as every command's `--json` is printed: indented, keys sorted, slashes as they are.
    public func printJSON(encoding value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        printJSON((try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}")
    }
}

/// A subcommand of `snippets-lsp`.
public protocol SnippetsCommand: Sendable {
    static var name: String { get }
    /// One line for the top-level help: a sentence without its full stop, starting with a capital.
    static var summary: String { get }
    /// Every option it takes, declared once: parsing, `--help` and the errors come from here.
    static var options: CommandOptions { get }
    /// The full `--help` text.
    static var help: String { get }
    /// Runs the command and returns the exit status.
    static func run(_ context: CommandContext) async -> Int32
    /// A tool for working on snippets-lsp itself (benchmarks, probe batteries, parser dumps): it runs by name like
    /// any command, and is listed by `--help-developer` rather than in the help a user reads.
    static var isDeveloperTool: Bool { get }
}

extension SnippetsCommand {
    public static var isDeveloperTool: Bool { false }

    /// `context`'s arguments parsed with `options`, for a command that takes no positional argument; nil after the
    /// error and the help are printed (the command then exits with 2).
    static func parsedOptionsOnly(_ context: CommandContext) -> ParsedArguments? {
        do {
            let arguments = try options.parse(context.arguments)
            if !arguments.positionals.isEmpty { throw ArgumentError.tooManyArguments(arguments.positionals) }
            return arguments
        } catch {
            context.printError("snippets-lsp \(name): \(error)\n\n\(help)")
            return nil
        }
    }
}

/// `snippets-lsp`'s entry point: picks the subcommand.
public enum CommandLineTool {
    public static let commands: [any SnippetsCommand.Type] = [
        ServeCommand.self,
        CheckCommand.self,
        SearchCommand.self,
        AskCommand.self,
        EmbedCommand.self,
        LearnCommand.self,
        GapsCommand.self,
        EvalCommand.self,
        BenchCommand.self,
        DoctorCommand.self,
        MCPCommand.self,
        YAMLDumpCommand.self,
    ]

    /// The commands a user reads about in `--help`.
    static var userCommands: [any SnippetsCommand.Type] { commands.filter { !$0.isDeveloperTool } }
    /// The tools for working on snippets-lsp itself, listed by `--help-developer`.
    static var developerTools: [any SnippetsCommand.Type] { commands.filter { $0.isDeveloperTool } }

    public static var help: String {
        var lines = [
            "snippets-lsp: a language server over your own snippet library.",
            "",
            "Usage: snippets-lsp [COMMAND] [OPTIONS]",
            "",
            "With no command, speaks LSP on stdin/stdout (same as `serve`).",
            "",
            "Commands:",
        ]
        lines += listing(userCommands)
        lines += ["", "Run `snippets-lsp COMMAND --help` for a command's options; `snippets-lsp --version` prints the version."]
        return lines.joined(separator: "\n")
    }

    /// The tools for working on snippets-lsp itself.
    static var developerHelp: String {
        (["Developer tools (for working on snippets-lsp itself; see docs/development.md):"] + listing(developerTools)
            + ["", "Run `snippets-lsp TOOL --help` for a tool's options."]).joined(separator: "\n")
    }

    /// One line per command, the summaries in one column two spaces past the longest name of all commands.
    private static func listing(_ listed: [any SnippetsCommand.Type]) -> [String] {
        let width = (commands.map { $0.name.count }.max() ?? 0) + 2
        return listed.map { "  " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + $0.summary }
    }

    /// Runs `snippets-lsp` with `arguments` (without the program name) and returns the exit status.
    public static func run(
        arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        output: CommandOutput = .process
    ) async -> Int32 {
        if let first = arguments.first, ["--help", "-h", "help"].contains(first) {
            output.standardOutput(help + "\n")
            return 0
        }
        if arguments == ["--help-developer"] {
            output.standardOutput(developerHelp + "\n")
            return 0
        }
        if arguments == ["--version"] {
            output.standardOutput("snippets-lsp \(LanguageServer.serverVersion)\n")
            return 0
        }
        var arguments = arguments
        let name = arguments.first.flatMap { $0.hasPrefix("-") ? nil : $0 } ?? "serve"
        if arguments.first == name { arguments.removeFirst() }
        guard let command = commands.first(where: { $0.name == name }) else {
            output.standardError("snippets-lsp: unknown command '\(name)'\n\n\(help)\n")
            return 2
        }
        let context = CommandContext(arguments: arguments, environment: environment, output: output)
        if command.options.asksForHelp(arguments) {
            output.standardOutput(command.help + "\n")
            return 0
        }
        return await command.run(context)
    }
}
