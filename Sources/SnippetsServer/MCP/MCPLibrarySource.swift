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

/// The library from disk for `snippets-lsp mcp`: loaded as `serve` loads it (the `ServerConfiguration` that
/// `ServeCommand.configuration` builds: `LibraryLoader`, `LayerLoading.annotating`, learned words, the last good
/// version of broken files), and reloaded when the periodic check of file sizes and modification times
/// (`configuration.libraryStamps`, `DiskStamps`) sees a change under the library paths or their repositories'
/// git state.
public actor WatchedLibrary: MCPLibrarySource {
    public nonisolated let layers: [LibraryLayer]
    public nonisolated let isLearning: Bool
    private let configuration: ServerConfiguration
    private var snapshot = LibrarySnapshot.empty
    private var lastGood = LastGoodFiles()
    private var isLoading = false
    private var loadRequested = false
    private var waiters: [Int: (generation: Int, continuation: CheckedContinuation<LibrarySnapshot, Never>)] = [:]
    private var nextWaiter = 0
    private var watcher: Task<Void, Never>?

    /// A library of `configuration.defaultLibraryLayers`; nothing is read until `start()`.
    public init(configuration: ServerConfiguration) {
        self.configuration = configuration
        layers = LibraryLayer.uniquelyNamed(configuration.defaultLibraryLayers).layers
        isLearning = !configuration.learningDisabled
    }

    /// Starts the first load and the periodic check.
    public func start() {
        scheduleLoad()
        guard let stamps = configuration.libraryStamps, watcher == nil else { return }
        let roots = layers.map(\.path) + LayerLoading.gitWatchedPaths(for: layers.map(\.path))
        let interval = configuration.pollInterval
        // Taken now, not in the task: an edit made right after start must count as a change.
        let initial = stamps(roots)
        watcher = Task.detached(priority: .utility) { [weak self] in
            var last = initial
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                let current = stamps(roots)
                guard current != last else { continue }
                last = current
                await self?.scheduleLoad()
            }
        }
    }

    /// Stops the periodic check.
    public func stop() {
        watcher?.cancel()
        watcher = nil
    }

    public func current() -> LibrarySnapshot { snapshot }

    public func snapshot(after generation: Int) async -> LibrarySnapshot {
        if snapshot.generation > generation || Task.isCancelled { return snapshot }
        let key = nextWaiter
        nextWaiter += 1
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // The handler may have run before the continuation existed: then nothing waits for it.
                if Task.isCancelled { continuation.resume(returning: snapshot) } else { waiters[key] = (generation, continuation) }
            }
        } onCancel: {
            Task { await self.stopWaiting(key) }
        }
    }

    private func stopWaiting(_ key: Int) {
        waiters.removeValue(forKey: key)?.continuation.resume(returning: snapshot)
    }

    public func reload() async -> LibrarySnapshot {
        // A load already running may have read the files before the change: wait for the one after it.
        let target = snapshot.generation + (isLoading ? 1 : 0)
        scheduleLoad()
        return await snapshot(after: target)
    }

    /// Loads off the actor and the cooperative threads; loads asked for while one runs fold into one more.
    private func scheduleLoad() {
        guard !isLoading else {
            loadRequested = true
            return
        }
        isLoading = true
        let layers = layers
        let configuration = configuration
        let learning = isLearning
        let lastGood = lastGood
        let generation = snapshot.generation + 1
        Task.detached(priority: .utility) {
            let snapshot = await LibraryService.offCooperativeThreads { () -> (LibrarySnapshot, LastGoodFiles) in
                let loaded = configuration.annotateLibrary(configuration.loadLibrary(layers, []))
                var newLastGood = lastGood
                let served = newLastGood.serving(loaded)
                let learned = learning ? configuration.loadLearnedWords(layers.map(\.path), served) : .none
                let snapshot = LibrarySnapshot(library: served, index: TokenIndex(library: served), generation: generation, learned: learned)
                snapshot.askFacts.prepare(index: snapshot.index)
                return (snapshot, newLastGood)
            }
            await self.install(snapshot.0, lastGood: snapshot.1)
        }
    }

    private func install(_ newSnapshot: LibrarySnapshot, lastGood: LastGoodFiles) {
        snapshot = newSnapshot
        self.lastGood = lastGood
        isLoading = false
        for (key, waiter) in waiters where waiter.generation < newSnapshot.generation {
            waiters[key] = nil
            waiter.continuation.resume(returning: newSnapshot)
        }
        let library = newSnapshot.library
        configuration.logError("snippets-lsp mcp: loaded \(library.snippets.count) snippets from \(library.files.count) files")
        if let meaning = configuration.meaning {
            meaning.embedInBackground(newSnapshot)
        } else {
            newSnapshot.askFacts.meaning.turnOff(because: configuration.meaningOffReason ?? MeaningSetup.offReason)
        }
        if loadRequested {
            loadRequested = false
            scheduleLoad()
        }
    }
}
