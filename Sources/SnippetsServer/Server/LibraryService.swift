import Foundation
import SnippetsCore

/// The library in service and how it gets there: loading and reloading off the request loop, the snapshot,
/// the periodic check of the library's files, and waiting for a snapshot to be installed. The language server and
/// the MCP server (through `WatchedLibrary`) both serve their library from one.
///
/// **Invariant:** at most one load runs at a time; reloads asked for while one runs are folded into one more run,
/// which reads the files after the last request. **Invariant:** a snapshot is replaced whole and never by an older
/// one. **Invariant:** nothing waits by polling: `firstSnapshot(within:)` and `reloadAndWait(timeout:)` are resumed
/// when a snapshot is installed (or at their timeout, or when their task is cancelled), each exactly once, and
/// after the server has handled the install (`InstallHandler`), so what a waiter replies comes after the client
/// heard of the load. **Invariant:** a language's snapshot (`completionSnapshot(forLanguage:within:)`, the files one
/// language needs) is never the snapshot in service: it serves completion in that language only, only until the first
/// load puts a snapshot in service, and it holds every layer's files for the language, so precedence is the full
/// library's.
actor LibraryService {
    /// What the server does once a load is in service (its problems published, the client told): awaited before
    /// anyone waiting for that load is resumed.
    typealias InstallHandler = @Sendable (_ snapshot: LibrarySnapshot, _ problems: LoadProblems) async -> Void

    /// Loads: the one that runs, and how many began and finished.
    private struct Loading {
        var task: Task<Void, Never>?
        /// A reload was asked for while `task` ran: one more run follows it.
        var isRequestedAgain = false
        /// Runs begun; a run's number is this count when it begins.
        var started = 0
        /// Runs whose snapshot is installed and handled.
        var finished = 0
        /// When the last run began (the wall clock file modification times are read in), nil before the first.
        var lastBegan: Date?
    }

    /// Someone waiting for a snapshot.
    private struct Waiter {
        enum Target {
            /// Any snapshot after the empty one (the first load's interim counts).
            case firstSnapshot
            /// The end of load run number `n`.
            case run(Int)
            /// Any snapshot of a later generation than this.
            case newerThan(Int)
            /// The first load's first snapshot, or the snapshot of this language's files if that comes first.
            case language(String)
            /// The snapshot of any language's files, or the first load's first snapshot if that comes first.
            case anyLanguage
        }

        let target: Target
        let continuation: CheckedContinuation<LibrarySnapshot, Never>
        let timer: Task<Void, Never>
    }

    /// Writes a line to stderr, and to the client too when the flag says so (a load's summary).
    typealias Log = @Sendable (_ line: String, _ toClient: Bool) -> Void

    private let configuration: ServerConfiguration
    private let log: Log
    /// Whether the first load serves the user's own library before the project snippets and annotations follow.
    private let servesInterim: Bool
    /// The library in service.
    private(set) var snapshot = LibrarySnapshot.empty
    /// Which library is loaded and watched.
    private var selection: LibrarySelection
    private var lastGood = LastGoodFiles()
    private var loading = Loading()
    private var waiters: [Int: Waiter] = [:]
    private var nextWaiterID = 0
    private var watcherTask: Task<Void, Never>?
    private var onInstall: InstallHandler?
    private var onLanguageFiles: (@Sendable (LibrarySnapshot) async -> Void)?
    /// Before the first load is in service: the snapshots of the files each language needs, by language.
    private var languageSnapshots: [String: LibrarySnapshot] = [:]
    /// The languages whose files are being read, by the selection they are read for.
    private var languagesLoading: Set<String> = []
    /// Counts `select(_:)` calls, so a language's snapshot read for an earlier selection is dropped.
    private var selectionNumber = 0

    init(configuration: ServerConfiguration, selection: LibrarySelection, servesInterim: Bool = true, log: @escaping Log) {
        self.configuration = configuration
        self.selection = selection
        self.servesInterim = servesInterim
        self.log = log
    }

    /// Sets what runs after each install (the server's publishing and announcing).
    func setInstallHandler(_ handler: @escaping InstallHandler) {
        onInstall = handler
    }

    /// Sets what runs once a language's files are read before the first load is in service (the server registers
    /// completion with a client that waits for a registration).
    func setLanguageFilesHandler(_ handler: @escaping @Sendable (LibrarySnapshot) async -> Void) {
        onLanguageFiles = handler
    }

    /// Chooses the library later loads read (a change of settings or workspace folders); it loads at the next
    /// `scheduleReload()`.
    func select(_ selection: LibrarySelection) {
        self.selection = selection
        selectionNumber += 1
        languageSnapshots = [:]
        languagesLoading = []
    }

    /// Loads the library off the request loop and swaps the new snapshot in when it is ready. Reloads asked for
    /// while one runs are folded into one more run.
    ///
    /// `firstLanguageWithin`: the first load, when nothing waits for it (`initialize` was answered without it),
    /// first lets the files of the first opened document's language be read (`loadFiles(forLanguage:)`), waiting at
    /// most this long for them: they serve the first completion, and on two cores the whole library's load would
    /// compete with them for a core. Nothing is read meanwhile, so precedence and the snapshot are unchanged.
    func scheduleReload(firstLanguageWithin grace: Duration? = nil) {
        guard loading.task == nil else {
            loading.isRequestedAgain = true
            return
        }
        loading.started += 1
        loading.lastBegan = Date()
        let layers = selection.layers
        let workspaceRoots = selection.workspaceFolders
        let loader = configuration.loadLibrary
        let annotate = configuration.annotateLibrary
        let loadLearned = selection.isLearning ? configuration.loadLearnedWords : nil
        let lastGood = self.lastGood
        let generation = snapshot.generation + 1
        let servesInterim = servesInterim
        let grace = generation == 1 ? grace : nil
        loading.task = Task.detached(priority: .utility) {
            if let grace { _ = await self.wait(for: .anyLanguage, timeout: grace) }
            // On the first load the user's own library goes into service as soon as it is read and indexed: what
            // is learned from the library as a whole (conflicts, revisions) follows, and so do project snippets,
            // which come from a repository someone opened (a slow or hostile `.vscode/*.code-snippets` must not keep
            // completion waiting). Later reloads need no interim (and no second index): the last snapshot serves.
            let (own, interim) = await Self.offCooperativeThreads { () -> (SnippetLibrary, LibrarySnapshot?) in
                let own = loader(layers, [])
                guard generation == 1, servesInterim else { return (own, nil) }
                var interimLastGood = lastGood
                let served = interimLastGood.serving(own)
                let learned = loadLearned?(layers.map(\.path), served) ?? .none
                return (own, LibrarySnapshot(library: served, index: TokenIndex(library: served), generation: generation, learned: learned))
            }
            if let interim { await self.installInterim(interim) }
            let (snapshot, newLastGood, problems) = await Self.offCooperativeThreads { () -> (LibrarySnapshot, LastGoodFiles, LoadProblems) in
                var loaded = own
                if !workspaceRoots.isEmpty {
                    loaded = loaded.adding(loader([], workspaceRoots))
                }
                loaded = annotate(loaded)
                var newLastGood = lastGood
                let served = newLastGood.serving(loaded)
                let snapshot: LibrarySnapshot
                if let interim, let index = interim.index?.serving(served) {
                    // The same snippets, annotated: the interim's index and learned words stay valid.
                    snapshot = LibrarySnapshot(library: served, index: index, generation: generation, learned: interim.learned)
                } else {
                    let learned = loadLearned?(layers.map(\.path), served) ?? .none
                    snapshot = LibrarySnapshot(library: served, index: TokenIndex(library: served), generation: generation, learned: learned)
                }
                return (snapshot, newLastGood, LoadProblems(loaded: loaded, learned: snapshot.learned))
            }
            await self.install(snapshot, lastGood: newLastGood, problems: problems)
            // After the swap, so completions are served first: the first ask then finds its facts ready.
            await Self.offCooperativeThreads { snapshot.askFacts.prepare(index: snapshot.index) }
        }
    }

    /// Reloads the library now and returns the snapshot in service once a load that started after this call is
    /// in service (or after `timeout`, or when the caller is cancelled: then the snapshot in service).
    func reloadAndWait(timeout: Duration = .seconds(30)) async -> LibrarySnapshot {
        // A load already running may have read the files before the change: the one after it is awaited.
        let run = loading.started + 1
        scheduleReload()
        return await wait(for: .run(run), timeout: timeout)
    }

    /// The snapshot in service once the first load has put one in service, or after `timeout` (the empty
    /// snapshot then).
    func firstSnapshot(within timeout: Duration) async -> LibrarySnapshot {
        guard snapshot.generation == 0 else { return snapshot }
        return await wait(for: .firstSnapshot, timeout: timeout)
    }

    /// The snapshot a completion in a document of `language` is served from: the one in service once the first load
    /// has put one in service. Before that, the first of: that load's first snapshot, or a snapshot of the files
    /// documents of `language` need, read, checked and indexed from every layer while the first load goes on
    /// (`ServerConfiguration.loadLanguageFiles`); after `timeout`, the empty snapshot.
    func completionSnapshot(forLanguage language: String, within timeout: Duration) async -> LibrarySnapshot {
        guard snapshot.generation == 0 else { return snapshot }
        if let languageSnapshot = languageSnapshots[language] { return languageSnapshot }
        loadFiles(forLanguage: language)
        return await wait(for: .language(language), timeout: timeout)
    }

    /// Starts reading the files documents of `language` need (a document of it was opened), unless the first load
    /// has put a snapshot in service, none was started yet, or they are read or being read already.
    func loadFiles(forLanguage language: String) {
        guard snapshot.generation == 0, loading.started > 0, let load = configuration.loadLanguageFiles,
            languageSnapshots[language] == nil, languagesLoading.insert(language).inserted
        else { return }
        let layers = selection.layers
        let number = selectionNumber
        // Above the whole library's load (`.utility`): a keystroke waits for this one.
        Task.detached(priority: .userInitiated) {
            let languageSnapshot = await Self.offCooperativeThreads(qos: .userInitiated) {
                let library = load(layers, language)
                return LibrarySnapshot(library: library, index: TokenIndex(library: library), generation: 0, language: language)
            }
            if let handler = await self.installLanguageSnapshot(languageSnapshot, selectionNumber: number) {
                await handler(languageSnapshot)
            }
        }
    }

    /// Keeps a language's snapshot for completion, unless the first load is in service by now or the selection
    /// changed since it was read; returns what to run once it is kept.
    private func installLanguageSnapshot(
        _ languageSnapshot: LibrarySnapshot, selectionNumber number: Int
    ) -> (@Sendable (LibrarySnapshot) async -> Void)? {
        guard let language = languageSnapshot.language, number == selectionNumber else { return nil }
        languagesLoading.remove(language)
        guard snapshot.generation == 0 else { return nil }
        languageSnapshots[language] = languageSnapshot
        resumeSatisfiedWaiters()
        return onLanguageFiles
    }

    /// The first snapshot of a later generation than `generation`, waiting for it (until `timeout`, or until the
    /// caller is cancelled: then the snapshot in service).
    func snapshot(newerThan generation: Int, timeout: Duration = .seconds(86_400)) async -> LibrarySnapshot {
        guard snapshot.generation <= generation else { return snapshot }
        return await wait(for: .newerThan(generation), timeout: timeout)
    }

    private func wait(for target: Waiter.Target, timeout: Duration) async -> LibrarySnapshot {
        nextWaiterID += 1
        let id = nextWaiterID
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let timer = Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    await self?.resume(id)
                }
                waiters[id] = Waiter(target: target, continuation: continuation, timer: timer)
            }
        } onCancel: {
            // Runs after the waiter is added (it is added synchronously on this actor, this hops onto it).
            Task { await self.resume(id) }
        }
    }

    /// Resumes waiter `id` with the snapshot in service (a completion before the first load is in service: its
    /// language's snapshot, when read), once.
    private func resume(_ id: Int) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        waiter.timer.cancel()
        if case .language(let language) = waiter.target, snapshot.generation == 0, let languageSnapshot = languageSnapshots[language] {
            waiter.continuation.resume(returning: languageSnapshot)
        } else {
            waiter.continuation.resume(returning: snapshot)
        }
    }

    /// Resumes every waiter whose snapshot is in service.
    private func resumeSatisfiedWaiters() {
        for (id, waiter) in waiters {
            switch waiter.target {
            case .firstSnapshot where snapshot.generation > 0: resume(id)
            case .run(let run) where run <= loading.finished: resume(id)
            case .newerThan(let generation) where snapshot.generation > generation: resume(id)
            case .language(let language) where snapshot.generation > 0 || languageSnapshots[language] != nil: resume(id)
            case .anyLanguage where snapshot.generation > 0 || !languageSnapshots.isEmpty: resume(id)
            default: break
            }
        }
    }

    /// Serves the user's own library, as read, while it is annotated and the project snippets load; a newer
    /// snapshot is never replaced.
    private func installInterim(_ interim: LibrarySnapshot) {
        guard interim.generation >= snapshot.generation else { return }
        snapshot = interim
        languageSnapshots = [:]
        resumeSatisfiedWaiters()
    }

    private func install(_ newSnapshot: LibrarySnapshot, lastGood: LastGoodFiles, problems: LoadProblems) async {
        snapshot = newSnapshot
        languageSnapshots = [:]
        self.lastGood = lastGood
        log(problems.summary(of: newSnapshot.library), true)
        for line in problems.logLines { log(line, false) }
        if problems.count > LoadProblems.loggedLimit {
            log("... and \(problems.count - LoadProblems.loggedLimit) more problems (run `snippets-lsp check` to see them all)", false)
        }
        // Reloads asked for meanwhile are folded into the follow-up: this run is still the one running.
        await onInstall?(newSnapshot, problems)
        loading.task = nil
        loading.finished = loading.started
        resumeSatisfiedWaiters()
        if loading.isRequestedAgain {
            loading.isRequestedAgain = false
            scheduleReload()
        }
    }

    /// Checks `roots` (sizes and modification times) every `pollInterval` (or longer for a costly check:
    /// `checkInterval(after:atLeast:)`), reloading on a change, instead of any earlier check; none for no roots or
    /// without `ServerConfiguration.libraryStamps`.
    ///
    /// Every walk runs in the background, the first included: `initialized` and the first completion never wait
    /// for a stat of every library file (45 ms with all the shared corpora). A file modified after the last load
    /// began counts as a change when the first walk finds it, so an edit made while the first walk runs (or
    /// between that load's reading and this call) is not taken for the state the snapshot holds.
    func watch(_ roots: [String]) {
        stopWatching()
        guard !roots.isEmpty, let stamps = configuration.libraryStamps else { return }
        let interval = configuration.pollInterval
        let loadBegan = loading.lastBegan
        watcherTask = Task.detached(priority: .utility) { [weak self] in
            var last = await Self.offCooperativeThreads { stamps(roots) }
            if let loadBegan, last.values.contains(where: { $0.modified >= loadBegan }) {
                await self?.scheduleReload()
            }
            var checkCost = Duration.zero
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.checkInterval(after: checkCost, atLeast: interval))
                if Task.isCancelled { return }
                // The check's own processor time, measured on the thread that ran it: not the wait for that thread,
                // which on a machine busy with other work can be long and would space the checks out for minutes.
                let (current, cost) = await Self.offCooperativeThreads { ThreadTime.measuring { stamps(roots) } }
                checkCost = cost
                if current != last {
                    last = current
                    await self?.scheduleReload()
                }
            }
        }
    }

    /// The periodic check sleeps at least this many times as long as the last check cost in processor time.
    static let checkSpacing = 400

    /// The longest the periodic check ever sleeps: an edit is seen within this, however large the library.
    static let longestCheckInterval: Duration = .seconds(30)

    /// How long the periodic check sleeps after a check that cost `cost` of processor time: never more than a quarter
    /// of a percent of a core (a library whose check costs 10 ms is checked every 4 s rather than every 2; all the
    /// shared corpora are about 3,400 files), never less than `interval`, never more than `longestCheckInterval`.
    static func checkInterval(after cost: Duration, atLeast interval: Duration) -> Duration {
        min(max(interval, cost * checkSpacing), max(interval, longestCheckInterval))
    }

    /// Stops the periodic check.
    func stopWatching() {
        watcherTask?.cancel()
        watcherTask = nil
    }

    /// Stops watching and loading, and resumes every waiter with the snapshot in service.
    func close() {
        stopWatching()
        loading.task?.cancel()
        for id in waiters.keys { resume(id) }
    }

    /// Runs `work` on a Dispatch thread and waits for its result. Loading blocks a thread for as long as it takes
    /// (file reads, parsing a large library, or a slow disk): never one of Swift's cooperative threads, which are
    /// as few as the processors and which the request loop needs.
    static func offCooperativeThreads<Result: Sendable>(
        qos: DispatchQoS.QoSClass = .utility, _ work: @escaping @Sendable () -> Result
    ) async -> Result {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: qos).async { continuation.resume(returning: work()) }
        }
    }
}
