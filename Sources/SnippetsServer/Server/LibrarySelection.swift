import Foundation
import SnippetsCore

/// Which library the settings choose and what of it is watched: a value computed from the settings, the workspace
/// folders and how the server was started, with no state of its own. The server hands it to `LibraryService`
/// whenever one of them changes, and a handler reads it from its `RequestContext`.
struct LibrarySelection: Sendable, Hashable {
    /// The library layers and which rule chose them: the `libraries` setting (resolved by `LibraryPaths.absolute`,
    /// exactly as `--library` is), else the default layers.
    let paths: LibraryPaths
    /// The workspace folders, whose `.vscode/*.code-snippets` files the loader adds.
    let workspaceFolders: [String]
    /// Whether ask learns: the `learning` setting, unless `serve --no-learning` switched it off.
    let isLearning: Bool
    /// The environment paths are resolved in (`~` is its `HOME`).
    private let environment: [String: String]

    /// The layers fixed at start (command line, `initializationOptions`): only what was writable there may be
    /// written later; nil before `initialize` has been applied.
    let startLayers: [LibraryLayer]?

    /// `startLayers`: the layers of the selection made at start, whose writability bounds every later one. A
    /// settings change (`workspace/didChangeConfiguration`, which a repository's settings can drive) may add or
    /// reorder layers, but a layer it lists is writable only inside a layer writable at start and outside every
    /// layer read-only at start; anything else is loaded read-only.
    init(settings: ServerSettings, configuration: ServerConfiguration, workspaceFolders: [String], startLayers: [LibraryLayer]? = nil) {
        if let libraries = settings.libraries {
            let layers = libraries.map { layer -> LibraryLayer in
                var layer = layer
                layer.path = LibraryPaths.absolute(layer.path, environment: configuration.environment)
                if let startLayers, !layer.isReadOnly, !Self.isWritable(layer.path, atStart: startLayers) { layer.isReadOnly = true }
                return layer
            }
            paths = LibraryPaths(layers: layers, source: .setting)
        } else {
            paths = LibraryPaths(layers: configuration.defaultLibraryLayers, source: configuration.defaultLibrarySource)
        }
        self.startLayers = startLayers
        self.workspaceFolders = workspaceFolders
        isLearning = settings.learning && !configuration.learningDisabled
        environment = configuration.environment
    }

    /// The library layers in precedence order, names unique.
    var layers: [LibraryLayer] { LibraryLayer.uniquelyNamed(paths.layers).layers }

    /// The layers every write is checked against: `layers`, plus each layer read-only at start that a later
    /// settings change left out, so that leaving a team checkout out of the list never makes it writable.
    var writeLayers: [LibraryLayer] {
        let layers = layers
        let dropped = (startLayers ?? []).filter { start in
            start.isReadOnly && !layers.contains { $0.isReadOnly && LibraryPath.normalize($0.path) == LibraryPath.normalize(start.path) }
        }
        return layers + dropped
    }

    /// Whether `path` lies inside a layer writable at start and in no layer read-only at start (links resolved).
    static func isWritable(_ path: String, atStart startLayers: [LibraryLayer]) -> Bool {
        guard LayerLoading.readOnlyLayer(containing: path, in: startLayers) == nil else { return false }
        let resolved = LayerLoading.resolvingLinks(path)
        return startLayers.contains { start in
            !start.isReadOnly
                && (start.contains(path: path) || LibraryLayer(path: LayerLoading.resolvingLinks(start.path)).contains(path: resolved))
        }
    }

    /// The paths the library is loaded from, in precedence order.
    var libraryPaths: [String] { layers.map(\.path) }

    /// The read-only layer `path` is in, if any (see `LayerLoading.readOnlyLayer(containing:in:)`): whatever writes
    /// into the library (saving a snippet, learned words) refuses when this is not nil, naming the layer
    /// (`SaveSelection.checkDestination`).
    func readOnlyLayer(containing path: String) -> LibraryLayer? {
        LayerLoading.readOnlyLayer(containing: LibraryPaths.absolute(path, environment: environment), in: layers)
    }

    /// The directories (or files) to watch: the configured paths, each workspace folder's `.vscode`, and the git
    /// state (`HEAD`, index, refs) of repositories holding a layer, so a commit or pull updates the revision.
    var watchedRoots: [String] {
        let libraryPaths = libraryPaths
        return libraryPaths + workspaceFolders.map { ($0 as NSString).appendingPathComponent(".vscode") }
            + LayerLoading.gitWatchedPaths(for: libraryPaths)
    }

    /// The watched roots that lie inside none of the workspace folders. Clients watch only their workspace
    /// (eglot 1.9 watches the folders of its project's files, lsp-mode 8.0 its workspace roots), so a registration
    /// for `~/.config/snippets` is accepted and never fires: these get the periodic check as well.
    var watchedRootsOutsideWorkspace: [String] {
        let folders = workspaceFolders.map { ($0 as NSString).standardizingPath }
        return watchedRoots.filter { root in
            let path = (root as NSString).standardizingPath
            return !folders.contains { folder in path == folder || path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/") }
        }
    }
}
