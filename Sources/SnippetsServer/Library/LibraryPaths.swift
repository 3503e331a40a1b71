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

    /// Absolute, normalised paths.
    public var paths: [String]
    public var source: Source

    /// Paths chosen by `source`.
    public init(paths: [String], source: Source) {
        self.paths = paths
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
    /// against `currentDirectory`, and a leading `~/` against `HOME`.
    public static func resolve(
        flags: [String],
        environment: [String: String],
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) -> LibraryPaths {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        func absolute(_ path: String) -> String {
            Self.absolute(path, environment: environment, currentDirectory: currentDirectory)
        }
        let given = flags.filter { !$0.isEmpty }
        if !given.isEmpty {
            return LibraryPaths(paths: given.map(absolute), source: .flags)
        }
        if let variable = environment["SNIPPETS_LIBRARY"] {
            let parts = variable.split(separator: ":").map(String.init).filter { !$0.isEmpty }
            if !parts.isEmpty { return LibraryPaths(paths: parts.map(absolute), source: .environment) }
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
        LibraryLoader(fileSystem: fileSystem, checkBody: checkBody).load(paths: paths, workspaceRoots: workspaceRoots)
    }
}
