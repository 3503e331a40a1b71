import Foundation
import SnippetsCore
import SnippetsModelClient

/// `snippets-lsp mcp`: the snippet library as a Model Context Protocol server on stdin/stdout, for coding agents.
public enum MCPCommand: SnippetsCommand {
    public static let name = "mcp"
    public static let summary = "Serve your snippets to coding agents (MCP on stdin/stdout)"
    /// `mcp`'s own options; the model's follow them.
    static let ownOptions = LibraryOptions.layered + CommandOptions([
        CommandOption.noLearning(
            "Ignore learned words and keep no gap log."),
        CommandOption(
            "--allow-save",
            help: "List save_snippet, which adds an entry to saved.code-snippets in the first writable layer (without "
                + "it the tool is not listed and a call is refused)."),
    ])
    public static let options = ownOptions + ModelOptions.options
    public static let help = """
        \(CommandOptions.usage("mcp", [ownOptions, ModelOptions.options]))

        Speaks the Model Context Protocol (revision \(MCPServer.protocolVersion)) on stdin/stdout, one JSON-RPC
        message per line, for Claude Code, VS Code, Continue, Cursor, Zed and other agents. Tools: search_snippets,
        ask_snippets (the grounded answer snippets/ask gives), get_snippet, and save_snippet with --allow-save.
        Every snippet is also a resource, snippet://ID. The library is reloaded when its files change (checked every
        2 seconds). Logs go to stderr; the process ends when stdin closes.

        Options:
        \(ownOptions.helpText())

        A language model behind ask_snippets:
        \(ModelOptions.help)

        Without --library: $SNIPPETS_LIBRARY (paths separated by ':'), else $XDG_CONFIG_HOME/snippets
        (~/.config/snippets).

        Exit status: 0 when stdin closes, 2 for a command-line mistake.
        """

    public static func run(_ context: CommandContext) async -> Int32 {
        let arguments: ParsedArguments
        var options = MCPServerOptions(environment: context.environment) { line in context.printError(line) }
        do {
            arguments = try Self.options.parse(context.arguments)
            options.model = try ModelOptions.configuration(from: arguments)
            options.modelRole = try ModelOptions.role(from: arguments)
        } catch {
            context.printError("snippets-lsp mcp: \(error)\n\n\(help)")
            return 2
        }
        guard arguments.positionals.isEmpty else {
            context.printError("snippets-lsp mcp: \(ArgumentError.tooManyArguments(arguments.positionals))")
            return 2
        }
        let flags = arguments.values(LibraryOptions.library.name)
        let readOnly = arguments.values(LibraryOptions.readOnly.name)
        for name in LibraryOptions.paths(from: arguments, environment: context.environment).unknownLayerNames(readOnly) {
            context.printError("snippets-lsp mcp: --read-only \(name) names no library layer (give it as --library \(name)=PATH)")
        }
        for warning in ModelOptions.warnings(for: options.model, environment: context.environment) {
            context.printError("snippets-lsp mcp: \(warning)")
        }
        options.allowsSave = arguments.has("--allow-save")
        var configuration = ServeCommand.configuration(libraryFlags: flags, readOnly: readOnly, context: context)
        configuration.learningDisabled = arguments.isLearningOff
        let library = WatchedLibrary(configuration: configuration)
        await library.start()
        let server = MCPServer(transport: StandardIOTransport(), library: library, options: options)
        let status = await server.run()
        await library.stop()
        return status
    }
}
