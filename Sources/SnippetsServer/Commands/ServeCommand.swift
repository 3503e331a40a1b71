import Foundation
import SnippetsCore
import SnippetsModelClient

/// `snippets-lsp serve [--library PATH]...`: the language server on stdin/stdout (also the default command).
public enum ServeCommand: SnippetsCommand {
    public static let name = "serve"
    public static let summary = "speak LSP on stdin/stdout (the default)"
    public static let help = """
        Usage: snippets-lsp [serve] [--library [NAME=]PATH]... [--read-only NAME]... [--no-learning] [--model-url URL ...]

        Speaks the Language Server Protocol on stdin/stdout. Logs go to stderr.

        Options:
          --library PATH   a snippet file or directory; repeat for several, in precedence order (the first
                           that defines a trigger wins). NAME=PATH names the layer (shown on completion
                           items and citations); unnamed, it is named after its folder. The editor's
                           `snippets.libraries` setting overrides these.
          --read-only NAME the layer NAME is never written (a team checkout); repeat for several. Also
                           $SNIPPETS_READ_ONLY (names separated by ':' or ',').
          --no-learning    ignore learned words (.snippets-learned.json), refuse snippets.learn and keep no gap
                           log, whatever the editor's `snippets.learning` setting says
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
        let role: ModelRoleSetting
        do {
            arguments = try ParsedArguments(context.arguments, options: ModelOptions.names.union(["--library", "--read-only"]), flags: ["--no-learning"])
            model = try ModelOptions.configuration(from: arguments)
            role = try ModelOptions.role(from: arguments)
        } catch {
            context.printError("snippets-lsp serve: \(error)\n\n\(help)")
            return 2
        }
        guard arguments.positionals.isEmpty else {
            context.printError("snippets-lsp serve: \(ArgumentError.tooManyArguments(arguments.positionals))")
            return 2
        }
        let readOnly = arguments.values("--read-only")
        var configuration = configuration(libraryFlags: arguments.values("--library"), readOnly: readOnly, context: context)
        let unknown = LibraryPaths.resolve(flags: arguments.values("--library"), environment: context.environment)
            .unknownLayerNames(readOnly)
        for name in unknown {
            context.printError("snippets-lsp serve: --read-only \(name) names no library layer (give it as --library \(name)=PATH)")
        }
        configuration.defaultModel = model
        configuration.defaultModelRole = role
        configuration.measuresModels = true
        configuration.learningDisabled = arguments.has("--no-learning")
        let server = LanguageServer(transport: StandardIOTransport(), configuration: configuration)
        return await server.run()
    }

    /// The server's configuration for `--library` flags and the environment: real disk, logs to stderr.
    public static func configuration(libraryFlags: [String], readOnly: [String] = [], context: CommandContext) -> ServerConfiguration {
        let resolved = LibraryPaths.resolve(flags: libraryFlags, environment: context.environment, readOnly: readOnly)
        var configuration = ServerConfiguration(
            defaultLibraryLayers: resolved.layers,
            loadLibrary: { layers, workspaceRoots in
                LibraryLoader(fileSystem: DiskFileSystem()).load(layers: layers, workspaceRoots: workspaceRoots)
            },
            logError: { line in context.printError(line) },
            environment: context.environment)
        configuration.defaultLibrarySource = resolved.source
        configuration.annotateLibrary = { library in LayerLoading.annotating(library) }
        return configuration
    }

}
