import Foundation
import SnippetsCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Loads layers from disk the way every command and the server do: the snippets (`LibraryLoader`), the revision
/// of each layer (`GitRevision`), and the conflicts between definitions (`LibraryConflicts`).
public enum LayerLoading {
    /// The library of `layers` plus the project snippets of `workspaceRoots`, annotated (`annotating`).
    public static func load(
        layers: [LibraryLayer],
        workspaceRoots: [String] = [],
        fileSystem: any LibraryFileSystem = DiskFileSystem(),
        checkBody: SnippetBodyChecker? = LibraryLoader.grammarBodyChecker
    ) -> SnippetLibrary {
        annotating(LibraryLoader(fileSystem: fileSystem, checkBody: checkBody).load(layers: layers, workspaceRoots: workspaceRoots))
    }

    /// `library` with what is learned from the whole of it rather than from one file: the revision of each
    /// layer (`GitRevision`) and the conflicts between definitions (`LibraryConflicts`). Snippets are unchanged,
    /// so the server puts the library in service first and annotates it after (see `ServerConfiguration`).
    public static func annotating(_ library: SnippetLibrary) -> SnippetLibrary {
        var library = library
        var filesByLayer: [String: [SnippetFile]] = [:]
        for file in library.files { filesByLayer[file.layer, default: []].append(file) }
        for layer in library.layers where layer.name != LibraryLayer.projectLayerName {
            library.layerRevisions[layer.name] = GitRevision.revision(of: layer, files: filesByLayer[layer.name] ?? [])
        }
        return LibraryConflicts.annotating(library)
    }

    /// The repository files to watch for the layers at `paths` (a commit or pull may change no snippet file but
    /// still changes the revision).
    public static func gitWatchedPaths(for paths: [String]) -> [String] {
        var seen: Set<GitRevision.Repository> = []
        var result: [String] = []
        for path in paths {
            let real = (path as NSString).resolvingSymlinksInPath
            guard let repository = GitRevision.repository(containing: real), seen.insert(repository).inserted else { continue }
            result += GitRevision.watchedPaths(of: repository)
        }
        return result
    }

    /// The read-only layer among `layers` that `path` is in, compared as written and with symbolic links resolved
    /// (so a link from a writable folder into a team checkout is caught); nil when writing there is allowed.
    /// Whatever writes into the library (saving a snippet, learned words) asks this first and refuses with the
    /// layer's name.
    public static func readOnlyLayer(containing path: String, in layers: [LibraryLayer]) -> LibraryLayer? {
        if let layer = SnippetLibrary.readOnlyLayer(containing: path, in: layers) { return layer }
        let resolvedPath = resolvingLinks(path)
        return layers.first { layer in layer.isReadOnly && LibraryLayer(path: resolvingLinks(layer.path)).contains(path: resolvedPath) }
    }

    /// What a write changes: a snippet file (saving) or a learned-words file (learning).
    public enum WriteKind: Sendable {
        case snippetFile
        case learnedWords
    }

    /// Why a write was refused, in words for the user.
    public struct WriteRefusal: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// JSON files a library directory may hold that are never snippet files: saving must not add members to them.
    static let configurationFileNames: Set<String> = [
        "package.json", "settings.json", "tasks.json", "launch.json", "keybindings.json", "extensions.json",
        "tsconfig.json", "jsconfig.json", "composer.json", "package-lock.json",
    ]

    /// The one destination check every write asks (a snippet saved with or without `saveTo`, from an editor or
    /// `snippets-lsp mcp`; learned words), of the file the write would change with every link resolved, the file's
    /// own included: it must be a file of `kind` inside a writable layer of `layers` (a snippet file: `.code-snippets`
    /// or `<language>.json`, under no hidden folder, where the loader reads it; learned words: the file of a writable
    /// layer's folder), and neither inside nor equal to a read-only layer (compared as written and resolved). Returns
    /// that resolved target, the file to write; a link that leads nowhere is refused.
    public static func writeTarget(of path: String, kind: WriteKind, layers: [LibraryLayer]) throws(WriteRefusal) -> String {
        let target = resolvingLinks(path)
        var info = stat()
        if lstat(target, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            throw WriteRefusal(description: "\(path) is a link that leads nowhere; nothing was written")
        }
        if let layer = readOnlyLayer(containing: path, in: layers) ?? readOnlyLayer(containing: target, in: layers) {
            throw WriteRefusal(description: "the library layer '\(layer.name)' (\(layer.path)) is read-only"
                + (target == LibraryPath.normalize(path) ? "" : " and \(path) leads into it (\(target))")
                + (kind == .snippetFile ? "; set snippets.saveTo to a .code-snippets file in a writable layer" : ""))
        }
        let shown = target == LibraryPath.normalize(path) ? path : "\(path) (a link to \(target))"
        // A special file is named as such, whatever else is wrong with the destination.
        if stat(target, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            throw WriteRefusal(description: "\(shown) is \(BoundedFileRead.kind(ofMode: info.st_mode)), not a regular file; nothing was written")
        }
        switch kind {
        case .learnedWords:
            let speaking = layers.filter { learnedWordsFile(of: $0) == target }
            guard LibraryPath.name(target) == LearnedWords.fileName, !speaking.isEmpty, speaking.allSatisfy({ !$0.isReadOnly }) else {
                throw WriteRefusal(description: "\(shown) is not the learned-words file of a writable library folder; nothing was written")
            }
        case .snippetFile:
            let name = LibraryPath.name(target)
            guard name.hasSuffix(".code-snippets") || (name.hasSuffix(".json") && !configurationFileNames.contains(name.lowercased())),
                !name.hasPrefix(".")
            else {
                throw WriteRefusal(description: "\(shown) is not a .code-snippets (or <language>.json) snippet file; nothing was written")
            }
            let inWritableLayer = layers.contains { layer in
                guard !layer.isReadOnly else { return false }
                let root = resolvingLinks(layer.path)
                guard LibraryLayer(path: root).contains(path: target) else { return false }
                // The loader skips hidden entries, so a file under one would be saved and never loaded.
                let inner = target.dropFirst(root.count).split(separator: "/")
                return !inner.dropLast().contains { $0.hasPrefix(".") }
            }
            guard inWritableLayer else {
                throw WriteRefusal(description:
                    "\(shown) is not inside your library's writable layers (snippets.libraries, --library); saving only adds to snippet "
                        + "files there, so set snippets.saveTo to a .code-snippets file in a writable library folder")
            }
        }
        return target
    }

    /// The learned-words write check for `layers` (`writeTarget(of:kind:layers:)` for `.learnedWords`), asked of
    /// the file a write would change (links resolved). So `.snippets-learned.json` linking to
    /// `../outside/settings.json`, or from the user's folder into a team checkout, is never written.
    public static func learnedWordsWriteCheck(_ layers: [LibraryLayer]) -> LearnedWordsStore.WriteCheck {
        { target in (try? writeTarget(of: target, kind: .learnedWords, layers: layers)) != nil }
    }

    /// The learned-words file that speaks for `layer` (`LearnedWordsStore.folders(for:)`), links resolved.
    static func learnedWordsFile(of layer: LibraryLayer) -> String {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: layer.path, isDirectory: &isDirectory)
        let folder = LearnedWords.folder(forLibraryPath: layer.path, isDirectory: !exists || isDirectory.boolValue)
        return resolvingLinks(LearnedWords.filePath(inFolder: folder))
    }

    /// `path` with symbolic links resolved (`realpath`: Foundation's `resolvingSymlinksInPath` leaves a link at
    /// the last component that points up a folder as it is); for a file that does not exist yet, its directory's.
    static func resolvingLinks(_ path: String) -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let parent = LibraryPath.parent(path)
        guard parent != path else { return path }
        return LibraryPath.join(resolvingLinks(parent), LibraryPath.name(path))
    }
}
