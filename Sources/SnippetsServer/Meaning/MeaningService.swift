import Foundation
import SnippetsCore

/// Embeds each library snapshot for meaning search in the background, never in the way of a request.
///
/// **Invariants:**
/// - Completion and ask never wait for it: a snapshot goes into service first, then its snippets are embedded on a
///   thread of its own at low priority (nice 10); an ask before it is done matches by meaning only what is ready and
///   says so (`AskMeaning`).
/// - Nothing is embedded twice: vectors are kept by the text they embed (`MeaningText`), in memory across reloads
///   and on disk under `$XDG_CACHE_HOME/snippets-lsp/meaning/` (one file per encoder), so a second start embeds
///   nothing and an edit embeds only the edited snippet. The cache holds vectors and hashes of text, never text.
/// - A newer snapshot stops the embedding of an older one between batches.
/// - The thresholds of a meaning pick are calibrated on the library once it is embedded (`MeaningCalibration`), and
///   kept beside the vectors by library revision, so an unchanged library is not calibrated again.
public final class MeaningService: @unchecked Sendable {
    /// Where the vectors are kept on disk; nil keeps them in memory only.
    public let cacheFolder: String?
    /// The encoder file the embedder is read from, for `doctor`.
    public let encoderPath: String?
    private let load: @Sendable () throws -> any SentenceEmbedder
    private let lock = NSLock()
    private var loaded: Result<any SentenceEmbedder, any Error>?
    private var loadedVectors: MeaningVectors?
    private var generation = 0
    /// The most bytes of a vector cache read (about 600,000 snippets).
    static let maximumCacheSize = 256 << 20

    /// A service whose embedder is `load`ed on first use (off the request path: reading the encoder file is not
    /// part of start-up).
    public init(encoderPath: String?, cacheFolder: String?, load: @escaping @Sendable () throws -> any SentenceEmbedder) {
        self.encoderPath = encoderPath
        self.cacheFolder = cacheFolder
        self.load = load
    }

    /// A service over an embedder already in hand.
    public convenience init(embedder: any SentenceEmbedder, cacheFolder: String?) {
        self.init(encoderPath: nil, cacheFolder: cacheFolder, load: { embedder })
    }

    /// The embedder, loaded the first time; the error when its file could not be read.
    public func embedder() throws -> any SentenceEmbedder {
        try lock.withLock {
            if let loaded { return loaded }
            let result = Result { try load() }
            loaded = result
            return result
        }.get()
    }

    /// How many of `library`'s snippets have a vector in the cache now.
    public func cachedCount(of library: SnippetLibrary) -> Int {
        guard let embedder = try? embedder() else { return 0 }
        let vectors = vectors(of: embedder)
        return library.snippets.filter { vectors.row(forKey: MeaningText.key(of: MeaningText.text(of: $0))) != nil }.count
    }

    /// The vector cache folder for `environment`: `$XDG_CACHE_HOME` when absolute, else `$HOME/.cache`.
    public static func cacheFolder(environment: [String: String]) -> String {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? LibraryPath.join(home, ".cache")
        return LibraryPath.join(cache, "snippets-lsp/meaning")
    }

    /// The cache file of this service's encoder.
    func cachePath(for embedder: any SentenceEmbedder) -> String? {
        cacheFolder.map { LibraryPath.join($0, FNV1a.hex(FNV1a.hash(embedder.identity.utf8)) + ".vectors") }
    }

    /// The vectors of `embedder`, read from the disk cache the first time.
    func vectors(of embedder: any SentenceEmbedder) -> MeaningVectors {
        lock.withLock {
            if let loadedVectors { return loadedVectors }
            var vectors = MeaningVectors(identity: embedder.identity, dimension: embedder.dimension)
            if let path = cachePath(for: embedder), let bytes = try? BoundedFileRead.contents(of: path, maximumSize: Self.maximumCacheSize),
                let cached = MeaningVectors(serialized: bytes, identity: embedder.identity, dimension: embedder.dimension)
            {
                vectors = cached
            }
            loadedVectors = vectors
            return vectors
        }
    }

    /// Embeds `library` (whose facts are `facts`) now, on the calling thread: what the command line does before it
    /// asks. `budget`: how long to spend encoding (nil: until every snippet is embedded); what is left is embedded
    /// by later calls, from the cache. Saves the cache when anything was encoded.
    /// `progress` is called with the snippets done and the total after each batch.
    @discardableResult
    public func embedNow(
        library: SnippetLibrary, facts: AskLibraryFacts, budget: Duration? = nil,
        progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) -> Int {
        // The budget is for encoding: it starts at the first batch, after the texts are read.
        var deadline: ContinuousClock.Instant?
        let shouldStop = {
            guard let budget else { return false }
            guard let deadline else {
                deadline = .now + budget
                return false
            }
            return ContinuousClock.now >= deadline
        }
        return embed(library, facts: facts, shouldStop: shouldStop, progress: progress)
    }

    /// Embeds `snapshot` on a thread of its own at low priority, stopping if a newer snapshot is given first.
    /// `progress` is called with the snippets done and the total after each batch, and once more when calibrated.
    public func embedInBackground(
        _ snapshot: LibrarySnapshot, progress: @escaping @Sendable (_ done: Int, _ total: Int, _ finished: Bool) -> Void = { _, _, _ in }
    ) {
        let mine = lock.withLock {
            generation += 1
            return generation
        }
        let thread = Thread { [self] in
            Self.lowerPriority()
            let facts = snapshot.askFacts
            let stopped = { self.lock.withLock { self.generation != mine } }
            embed(
                snapshot.library, facts: facts, shouldStop: stopped, abandonsWhenStopped: true,
                progress: { done, total in progress(done, total, false) })
            guard !stopped() else { return }
            let status = facts.meaning.status
            progress(status.embedded, status.total, true)
        }
        thread.name = "snippets-lsp meaning"
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// What `embedNow` and `embedInBackground` share: embeds what the cache lacks of `library` into `facts` until
    /// `shouldStop`, calibrates once every snippet has a vector, and saves the cache when anything was encoded.
    /// `abandonsWhenStopped`: a run stopped for a newer snapshot neither calibrates nor saves. An encoder file that
    /// cannot be read turns meaning off with the reason.
    @discardableResult
    private func embed(
        _ library: SnippetLibrary, facts: AskLibraryFacts, shouldStop: () -> Bool, abandonsWhenStopped: Bool = false,
        progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) -> Int {
        let embedder: any SentenceEmbedder
        do { embedder = try self.embedder() } catch {
            facts.meaning.turnOff(because: MeaningSetup.unreadable(encoderPath, error))
            return 0
        }
        let vectors = vectors(of: embedder)
        let before = vectors.count
        var keys = Set<String>()
        let encoded = MeaningEmbedding.run(
            library: library, facts: facts, embedder: embedder, vectors: vectors, shouldStop: shouldStop, progress: progress,
            keyed: { keys.insert($0) })
        if abandonsWhenStopped && shouldStop() { return encoded }
        if facts.meaning.status.state == .ready { calibrate(library, facts: facts, embedder: embedder, vectors: vectors) }
        if vectors.count != before { save(vectors, of: embedder, keeping: keys, library: library) }
        return encoded
    }

    /// Sets `facts`' thresholds: those kept for this library revision (`MeaningCalibration.fingerprint`), else a new
    /// calibration, which is then kept. A command that asks once must not calibrate again what has not changed.
    private func calibrate(_ library: SnippetLibrary, facts: AskLibraryFacts, embedder: any SentenceEmbedder, vectors: MeaningVectors) {
        let fingerprint = MeaningCalibration.fingerprint(of: facts.meaning, encoder: embedder.identity) ?? ""
        let path = cachePath(for: embedder).map { $0.replacingSuffix(".vectors", with: ".calibrations") }
        var kept = path.flatMap { try? BoundedFileRead.contents(of: $0, maximumSize: 1 << 20) }
            .flatMap { try? JSONDecoder().decode(KeptCalibrations.self, from: Data($0)) } ?? KeptCalibrations()
        if let thresholds = kept.thresholds(for: fingerprint) {
            facts.meaning.calibrate(thresholds)
            return
        }
        let thresholds = MeaningCalibration.thresholds(for: library, meaning: facts.meaning, embedder: embedder, vectors: vectors)
        facts.meaning.calibrate(thresholds)
        guard let path, let folder = cacheFolder, !fingerprint.isEmpty else { return }
        kept.keep(thresholds, for: fingerprint)
        guard let data = try? JSONEncoder().encode(kept) else { return }
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try? data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// Thresholds by library revision, the most recent `capacity` kept (a person switches between a few libraries).
    struct KeptCalibrations: Codable {
        static let capacity = 16
        var entries: [Entry] = []
        struct Entry: Codable {
            var fingerprint: String
            var thresholds: MeaningThresholds
        }

        func thresholds(for fingerprint: String) -> MeaningThresholds? {
            entries.first { $0.fingerprint == fingerprint }?.thresholds
        }

        mutating func keep(_ thresholds: MeaningThresholds, for fingerprint: String) {
            entries.removeAll { $0.fingerprint == fingerprint }
            entries.insert(Entry(fingerprint: fingerprint, thresholds: thresholds), at: 0)
            if entries.count > Self.capacity { entries.removeLast(entries.count - Self.capacity) }
        }
    }

    /// Writes the vectors the library uses (and calibration probes) to the cache file, atomically. A cache that
    /// cannot be written costs embedding at the next start, nothing else.
    private func save(_ vectors: MeaningVectors, of embedder: any SentenceEmbedder, keeping keys: Set<String>, library: SnippetLibrary) {
        guard let folder = cacheFolder, let path = cachePath(for: embedder) else { return }
        let keys = keys.union(MeaningCalibration.probeKeys(for: library))
        let bytes = vectors.serialized(keeping: keys)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {}
    }

    /// Nice 10 for the calling thread only (on Linux the nice value is per thread).
    private static func lowerPriority() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #endif
    }
}

private extension String {
    func replacingSuffix(_ suffix: String, with replacement: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + replacement : self + replacement
    }
}
