import Foundation
import SnippetsCore

/// Where the MCP server gets the library: the snapshot in service, and the next one when the files change.
///
/// Small on purpose, so whatever serves the language server's library can serve this one too: a snapshot is replaced
/// whole (`LibrarySnapshot`), and waiting for a change is an awaited event, not a polling loop.
public protocol MCPLibrarySource: Sendable {
    /// The layers the library is read from, in precedence order (for the save destination and read-only checks).
    var layers: [LibraryLayer] { get }
    /// Whether learned words and the gap log are in use (`--no-learning` turns them off).
    var isLearning: Bool { get }
    /// The snapshot in service; generation 0 before the first load.
    func current() async -> LibrarySnapshot
    /// The first snapshot whose generation is above `generation`, waiting for it; when the waiting task is
    /// cancelled, the snapshot in service at once.
    func snapshot(after generation: Int) async -> LibrarySnapshot
    /// Loads the library again now and returns a snapshot read after this call (a saved snippet is then in service).
    func reload() async -> LibrarySnapshot
}

extension MCPLibrarySource {
    /// The snapshot in service, waiting up to `timeout` for the first load; generation 0 if it did not come in time.
    public func loaded(within timeout: Duration) async -> LibrarySnapshot {
        let now = await current()
        guard now.generation == 0 else { return now }
        return await withTaskGroup(of: LibrarySnapshot?.self) { group in
            group.addTask { await self.snapshot(after: 0) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            if let first { return first }
            return await self.current()
        }
    }
}

/// The library from disk for `snippets-lsp mcp`: the language server's own `LibraryService` (the same loading,
/// annotations, learned words, last good version of broken files, reload folding and periodic check of file sizes
/// and modification times), read from `configuration.defaultLibraryLayers` with no workspace folders. A snapshot is
/// served once annotated (an agent's citations carry layer revisions), and embedded by meaning in the background.
public actor WatchedLibrary: MCPLibrarySource {
    public nonisolated let layers: [LibraryLayer]
    public nonisolated let isLearning: Bool
    private let configuration: ServerConfiguration
    private let service: LibraryService
    private let selection: LibrarySelection
    private var isStarted = false

    /// A library of `configuration.defaultLibraryLayers`; nothing is read until `start()`.
    public init(configuration: ServerConfiguration) {
        self.configuration = configuration
        let selection = LibrarySelection(settings: ServerSettings(), configuration: configuration, workspaceFolders: [])
        self.selection = selection
        layers = selection.layers
        isLearning = selection.isLearning
        let logError = configuration.logError
        service = LibraryService(configuration: configuration, selection: selection, servesInterim: false) { line, _ in
            logError("snippets-lsp mcp: " + line)
        }
    }

    /// Starts the first load and the periodic check.
    public func start() async {
        guard !isStarted else { return }
        isStarted = true
        let configuration = configuration
        await service.setInstallHandler { snapshot, _ in
            if let meaning = configuration.meaning {
                meaning.embedInBackground(snapshot)
            } else {
                snapshot.askFacts.meaning.turnOff(because: configuration.meaningOffReason ?? MeaningSetup.offReason)
            }
        }
        await service.scheduleReload()
        await service.watch(selection.watchedRoots)
    }

    /// Stops the periodic check.
    public func stop() async {
        await service.stopWatching()
    }

    public func current() async -> LibrarySnapshot { await service.snapshot }

    public func snapshot(after generation: Int) async -> LibrarySnapshot {
        await service.snapshot(newerThan: generation)
    }

    public func reload() async -> LibrarySnapshot {
        await service.reloadAndWait()
    }
}
