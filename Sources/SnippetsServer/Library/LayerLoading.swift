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

    /// The learned-words write check for `layers`, asked of the file a write would change (links resolved): it
    /// must be the learned-words file of a layer's folder, and not inside a read-only layer nor the file of a
    /// read-only layer's folder. So `.snippets-learned.json` linking to `../outside/settings.json`, or from the
    /// user's folder into a team checkout, is never written.
    public static func learnedWordsWriteCheck(_ layers: [LibraryLayer]) -> LearnedWordsStore.WriteCheck {
        { target in
            let target = resolvingLinks(target)
            guard LibraryPath.name(target) == LearnedWords.fileName, readOnlyLayer(containing: target, in: layers) == nil else { return false }
            let speaking = layers.filter { learnedWordsFile(of: $0) == target }
            return !speaking.isEmpty && speaking.allSatisfy { !$0.isReadOnly }
        }
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
