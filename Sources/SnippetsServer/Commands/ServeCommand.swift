import Foundation
import SnippetsCore

/// `snippets-lsp serve [--library PATH]...`: the language server on stdin/stdout (also the default command).
public enum ServeCommand: SnippetsCommand {
    public static let name = "serve"
    public static let summary = "speak LSP on stdin/stdout (the default)"
    public static let help = """
        Usage: snippets-lsp [serve] [--library PATH]...

        Speaks the Language Server Protocol on stdin/stdout. Logs go to stderr.

        Options:
          --library PATH   a snippet file or directory; repeat for several. The editor's `snippets.libraries`
                           setting overrides these.
          --help           show this help

        Without --library: $SNIPPETS_LIBRARY (paths separated by ':'), else $XDG_CONFIG_HOME/snippets
        (~/.config/snippets). Each workspace folder's .vscode/*.code-snippets files are added.

        Exit status: 0 after the client's shutdown and exit, 1 when input ends or exit comes without shutdown,
        2 for a command-line mistake.
        """

    public static func run(_ context: CommandContext) async -> Int32 {
        let arguments: ParsedArguments
        do {
            arguments = try ParsedArguments(context.arguments, options: ["--library"], flags: [])
        } catch {
            context.printError("snippets-lsp serve: \(error)\n\n\(help)")
            return 2
        }
        guard arguments.positionals.isEmpty else {
            context.printError("snippets-lsp serve: \(ArgumentError.tooManyArguments(arguments.positionals))")
            return 2
        }
        let configuration = configuration(libraryFlags: arguments.values("--library"), context: context)
        let server = LanguageServer(transport: StandardIOTransport(), configuration: configuration)
        return await server.run()
    }

    /// The server's configuration for `--library` flags and the environment: real disk, logs to stderr.
    public static func configuration(libraryFlags: [String], context: CommandContext) -> ServerConfiguration {
        ServerConfiguration(
            defaultLibraryPaths: defaultLibraryPaths(flags: libraryFlags, environment: context.environment),
            loadLibrary: { paths in LibraryLoader(fileSystem: ServeDiskFileSystem()).load(paths: paths) },
            logError: { line in context.printError(line) },
            environment: context.environment)
    }

    /// `--library` values, else `SNIPPETS_LIBRARY` (colon-separated), else `$XDG_CONFIG_HOME/snippets`.
    public static func defaultLibraryPaths(flags: [String], environment: [String: String]) -> [String] {
        if !flags.isEmpty { return flags }
        if let variable = environment["SNIPPETS_LIBRARY"], !variable.isEmpty {
            return variable.split(separator: ":").map(String.init)
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        return [config + "/snippets"]
    }
}

/// The disk, for the loader. (Stand-in until the `formats` work's disk file system is merged.)
struct ServeDiskFileSystem: LibraryFileSystem {
    func item(at path: String) -> FileSystemItem {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return .missing }
        if isDirectory.boolValue { return .directory }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        return .file(size: size)
    }

    func contentsOfDirectory(at path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path)
    }

    func contents(of path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func canonicalPath(of path: String) -> String? {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}
