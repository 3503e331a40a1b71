import Foundation
import SnippetsCore
import SnippetsModelClient

/// `snippets-lsp serve [--library PATH]...`: the language server on stdin/stdout (also the default command).
public enum ServeCommand: SnippetsCommand {
    public static let name = "serve"
    public static let summary = "speak LSP on stdin/stdout (the default)"
    public static let help = """
        Usage: snippets-lsp [serve] [--library PATH]... [--model-url URL ...]

        Speaks the Language Server Protocol on stdin/stdout. Logs go to stderr.

        Options:
          --library PATH   a snippet file or directory; repeat for several. The editor's `snippets.libraries`
                           setting overrides these.
          --help           show this help

        A language model behind snippets/ask (the editor's `snippets.model` setting overrides these):
        \(ModelOptions.help)

        Without --library: $SNIPPETS_LIBRARY (paths separated by ':'), else $XDG_CONFIG_HOME/snippets
        (~/.config/snippets). Each workspace folder's .vscode/*.code-snippets files are added.

        Exit status: 0 after the client's shutdown and exit, 1 when input ends or exit comes without shutdown,
        2 for a command-line mistake.
        """

    public static func run(_ context: CommandContext) async -> Int32 {
        let arguments: ParsedArguments
        let model: ModelConfiguration?
        do {
            arguments = try ParsedArguments(context.arguments, options: ModelOptions.names.union(["--library"]), flags: [])
            model = try ModelOptions.configuration(from: arguments)
        } catch {
            context.printError("snippets-lsp serve: \(error)\n\n\(help)")
            return 2
        }
        guard arguments.positionals.isEmpty else {
            context.printError("snippets-lsp serve: \(ArgumentError.tooManyArguments(arguments.positionals))")
            return 2
        }
        var configuration = configuration(libraryFlags: arguments.values("--library"), context: context)
        configuration.defaultModel = model
        let server = LanguageServer(transport: StandardIOTransport(), configuration: configuration)
        return await server.run()
    }

    /// The server's configuration for `--library` flags and the environment: real disk, logs to stderr.
    public static func configuration(libraryFlags: [String], context: CommandContext) -> ServerConfiguration {
        let resolved = LibraryPaths.resolve(flags: libraryFlags, environment: context.environment)
        var configuration = ServerConfiguration(
            defaultLibraryPaths: resolved.paths,
            loadLibrary: { paths, workspaceRoots in
                LibraryPaths(paths: paths, source: .flags).load(workspaceRoots: workspaceRoots)
            },
            logError: { line in context.printError(line) },
            environment: context.environment)
        configuration.defaultLibrarySource = resolved.source
        return configuration
    }

}
