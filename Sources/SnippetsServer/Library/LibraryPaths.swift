import Foundation
import SnippetsCore

/// Where the snippet library is, decided the same way by every command and the server:
/// the `--library` flags (files or directories, several allowed), else `SNIPPETS_LIBRARY` (paths separated by `:`),
/// else `$XDG_CONFIG_HOME/snippets` (`~/.config/snippets` when `XDG_CONFIG_HOME` is unset). A path that does not
/// exist is not dropped here: loading reports it as a `missing-path` error that names it.
public struct LibraryPaths: Hashable, Sendable {
    /// Which rule chose the paths.
    public enum Source: String, Hashable, Sendable {
        case flags
        case environment
        case defaultDirectory
        /// The editor's `libraries` setting.
        case setting
    }

    /// The layers, in precedence order, their paths absolute and normalised (see `LibraryLayer`).
    public var layers: [LibraryLayer]
    public var source: Source

    /// Absolute, normalised paths.
    public var paths: [String] { layers.map(\.path) }

    /// Unnamed paths chosen by `source`.
    public init(paths: [String], source: Source) {
        self.init(layers: paths.map { LibraryLayer(path: $0) }, source: source)
    }

    /// Layers chosen by `source`.
    public init(layers: [LibraryLayer], source: Source) {
        self.layers = layers
        self.source = source
    }

    /// Where the paths came from, for messages ("from --library", "from SNIPPETS_LIBRARY", ...).
    public var sourceDescription: String {
        switch source {
        case .flags: "from --library"
        case .environment: "from SNIPPETS_LIBRARY"
        case .defaultDirectory: "the default library directory"
        case .setting: "from the editor setting snippets.libraries"
        }
    }

    /// The one way a user-given path becomes absolute, for `--library`, `SNIPPETS_LIBRARY`, the `libraries` and
    /// `saveTo` settings: `~` and a leading `~/` against `$HOME` (the process's home only when `HOME` is unset or
    /// empty), a relative path against `currentDirectory`; the result is normalised.
    public static func absolute(
        _ path: String, environment: [String: String],
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) -> String {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        if path == "~" { return LibraryPath.normalize(home) }
        if path.hasPrefix("~/") { return LibraryPath.join(home, String(path.dropFirst(2))) }
        return LibraryPath.join(currentDirectory, path)
    }

    /// The library paths for `flags` (the values of `--library`) and `environment`; relative paths are resolved
    /// against `currentDirectory`, and a leading `~/` against `HOME`. Each flag or `SNIPPETS_LIBRARY` entry may be
    /// `NAME=PATH` (see `LibraryLayer.splitSpec`); the layers named in `readOnly` (`--read-only`) and in
    /// `SNIPPETS_READ_ONLY` (names separated by `:` or `,`) are read-only.
    public static func resolve(
        flags: [String],
        environment: [String: String],
        currentDirectory: String = FileManager.default.currentDirectoryPath,
        readOnly: [String] = []
    ) -> LibraryPaths {
        let unnamed = resolvePaths(flags: flags, environment: environment, currentDirectory: currentDirectory)
        let readOnlyNames = Set(readOnly + (environment["SNIPPETS_READ_ONLY"] ?? "").split(whereSeparator: { $0 == ":" || $0 == "," }).map(String.init))
        let layers = unnamed.layers.map { layer -> LibraryLayer in
            var layer = layer
            layer.isReadOnly = readOnlyNames.contains(layer.name)
            return layer
        }
        return LibraryPaths(layers: LibraryLayer.uniquelyNamed(layers).layers, source: unnamed.source)
    }

    /// The names in `readOnly` that name none of these layers (each worth a warning).
    public func unknownLayerNames(_ names: [String]) -> [String] {
        names.filter { name in !layers.contains { $0.name == name } }
    }

    private static func resolvePaths(
        flags: [String],
        environment: [String: String],
        currentDirectory: String
    ) -> LibraryPaths {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        func absolute(_ path: String) -> String {
            Self.absolute(path, environment: environment, currentDirectory: currentDirectory)
        }
        func layer(_ spec: String) -> LibraryLayer {
            let (name, path) = LibraryLayer.splitSpec(spec)
            return LibraryLayer(path: absolute(path), name: name)
        }
        let given = flags.filter { !$0.isEmpty }
        if !given.isEmpty {
            return LibraryPaths(layers: given.map(layer), source: .flags)
        }
        if let variable = environment["SNIPPETS_LIBRARY"] {
            let parts = variable.split(separator: ":").map(String.init).filter { !$0.isEmpty }
            if !parts.isEmpty { return LibraryPaths(layers: parts.map(layer), source: .environment) }
        }
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? LibraryPath.join(home, ".config")
        return LibraryPaths(paths: [LibraryPath.join(configHome, "snippets")], source: .defaultDirectory)
    }

    /// Loads the library at these paths from disk (plus the project snippets of `workspaceRoots`).
    public func load(
        workspaceRoots: [String] = [],
        fileSystem: any LibraryFileSystem = DiskFileSystem(),
        checkBody: SnippetBodyChecker? = LibraryLoader.grammarBodyChecker
    ) -> SnippetLibrary {
        LayerLoading.load(layers: layers, workspaceRoots: workspaceRoots, fileSystem: fileSystem, checkBody: checkBody)
    }
}

extension LibraryPaths {
    /// `snippets-lsp <command>` with one `--library` option per layer (`NAME=PATH` for a named one), quoted for a
    /// POSIX shell where needed: the command line a hint tells the user to run, so that it reads exactly the
    /// library the hint is about, whatever chose it (flags, `SNIPPETS_LIBRARY`, the editor's setting).
    public func commandLine(_ command: String) -> String {
        let options = layers.map { layer in
            " --library " + Self.shellQuoted(layer.isNamed ? "\(layer.name)=\(layer.path)" : layer.path)
        }
        return "snippets-lsp \(command)" + options.joined()
    }

    /// `word` as one POSIX shell word: as it is when it holds only characters no shell treats specially, else in
    /// single quotes (a `'` inside written as `'\''`).
    static func shellQuoted(_ word: String) -> String {
        let plain = word.unicodeScalars.allSatisfy { scalar in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || "/._-+=,:@%".unicodeScalars.contains(scalar)
        }
        if plain && !word.isEmpty { return word }
        return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
