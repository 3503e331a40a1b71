import Foundation
import SnippetsCore
import SnippetsModelClient

/// `snippets-lsp serve [--library PATH]...`: the language server on stdin/stdout (also the default command).
public enum ServeCommand: SnippetsCommand {
    public static let name = "serve"
    public static let summary = "Speak LSP on stdin/stdout (the default)"
    /// `serve`'s own options; the model's follow them.
    static let ownOptions = LibraryOptions.layered + CommandOptions([
        CommandOption.noLearning(
            "Ignore learned words (.snippets-learned.json), refuse snippets.learn and keep no gap log, whatever "
                + "the editor's `snippets.learning` setting says."),
    ])
    public static let options = ownOptions + ModelOptions.options
    public static let help = """
        \(CommandOptions.usage("[serve]", [ownOptions, ModelOptions.options]))

        Speaks the Language Server Protocol on stdin/stdout. Logs go to stderr. The editor's `snippets.libraries`
        setting overrides --library.

        Options:
        \(ownOptions.helpText())

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
            arguments = try options.parse(context.arguments)
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
        let readOnly = arguments.values(LibraryOptions.readOnly.name)
        var configuration = configuration(
            libraryFlags: arguments.values(LibraryOptions.library.name), readOnly: readOnly, context: context)
        let unknown = LibraryOptions.paths(from: arguments, environment: context.environment).unknownLayerNames(readOnly)
        for name in unknown {
            context.printError("snippets-lsp serve: --read-only \(name) names no library layer (give it as --library \(name)=PATH)")
        }
        configuration.defaultModel = model
        configuration.defaultModelRole = role
        configuration.measuresModels = true
        configuration.learningDisabled = arguments.isLearningOff
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
        configuration.loadLanguageFiles = { layers, language in
            LibraryLoader(fileSystem: DiskFileSystem()).load(layers: layers, language: language)
        }
        configuration.annotateLibrary = { library in LayerLoading.annotating(library) }
        configuration.triggerCharacterMemory = TriggerCharacterMemory(environment: context.environment)
        let walk = DiskStamps.WalkKeeping()
        configuration.libraryStamps = walk.stamps(under:)
        configuration.libraryWalk = walk
        (configuration.meaning, configuration.meaningOffReason) = MeaningSetup.service(environment: context.environment)
        return configuration
    }

}
