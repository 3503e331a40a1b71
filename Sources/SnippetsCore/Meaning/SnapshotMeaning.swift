import Foundation

/// Meaning search over one library snapshot: which snippets have a vector so far, the embedder that questions are
/// encoded with, and the thresholds calibrated on this library (`MeaningCalibration`). Kept in `AskLibraryFacts`, so
/// every ask over the snapshot sees the same state.
///
/// Filled in the background (the server's `MeaningService`, or the command line before it asks): an ask never waits
/// for it and uses what is ready, saying so (`AskMeaning`). Without an embedder it stays `off` and ask works by words
/// alone, as it did before meaning existed. Thread-safe (one lock).
public final class SnapshotMeaning: @unchecked Sendable {
    private let lock = NSLock()
    private var embedder: (any SentenceEmbedder)?
    private var vectors: MeaningVectors?
    private var rowBySnippet: [SnippetID: Int] = [:]
    private var total = 0
    private var calibrated: MeaningThresholds?
    private var offReason: String?
    private var revision: String?

    public init() {}

    /// Starts meaning search with `embedder`, whose vectors go to `vectors`; `total` snippets are to be embedded.
    public func attach(embedder: any SentenceEmbedder, vectors: MeaningVectors, total: Int) {
        lock.withLock {
            self.embedder = embedder
            self.vectors = vectors
            self.total = total
            offReason = nil
        }
    }

    /// Records why meaning search is off (no encoder file, an unreadable one): shown in `AskMeaning.note`.
    public func turnOff(because reason: String) {
        lock.withLock { offReason = reason }
    }

    /// Records that `snippet`'s vector is `row` of the attached store.
    public func record(_ snippet: SnippetID, row: Int) {
        lock.withLock { rowBySnippet[snippet] = row }
    }

    /// Records several at once.
    public func record(_ rows: [(SnippetID, Int)]) {
        lock.withLock { for (id, row) in rows { rowBySnippet[id] = row } }
    }

    /// What was embedded, as a digest of each snippet's identifier, title and embedded text (set by
    /// `MeaningEmbedding.run`; the calibration's fingerprint is made from it).
    public var textsRevision: String? {
        get { lock.withLock { revision } }
        set { lock.withLock { revision = newValue } }
    }

    /// Sets the thresholds calibrated on this library.
    public func calibrate(_ thresholds: MeaningThresholds) {
        lock.withLock { calibrated = thresholds }
    }

    /// The thresholds in force: calibrated on this library when that is done, else the defaults.
    public var thresholds: MeaningThresholds { lock.withLock { calibrated ?? .defaults } }

    /// Whether the thresholds were calibrated on this library.
    public var isCalibrated: Bool { lock.withLock { calibrated != nil } }

    /// How far embedding has got.
    public var status: AskMeaning {
        lock.withLock {
            guard embedder != nil else { return AskMeaning(state: .off, embedded: 0, total: 0, note: offReason) }
            let done = rowBySnippet.count
            return AskMeaning(state: done >= total ? .ready : .embedding, embedded: min(done, total), total: total, note: nil)
        }
    }

    /// The embedder, when meaning search is on.
    public var questionEmbedder: (any SentenceEmbedder)? { lock.withLock { embedder } }

    /// Whether `snippet` has a vector.
    public func hasVector(_ snippet: SnippetID) -> Bool { lock.withLock { rowBySnippet[snippet] != nil } }

    /// The snippets with a vector among those `include` accepts, nearest to `query` first, with their similarity (ties
    /// by identifier). One pass over the store's vectors, then a selection that asks `include` only about a snippet
    /// nearer than the `limit` found so far: an ask over a hundred thousand snippets neither sorts nor filters them all.
    public func nearest(to query: [Float], limit: Int, where include: (SnippetID) -> Bool) -> [(id: SnippetID, similarity: Float)] {
        let (vectors, entries) = lock.withLock { (self.vectors, rowBySnippet) }
        guard let vectors, !entries.isEmpty, limit > 0, query.count == vectors.dimension else { return [] }
        let similarity = vectors.allSimilarities(of: query)
        func precedes(_ a: (id: SnippetID, similarity: Float), _ b: (id: SnippetID, similarity: Float)) -> Bool {
            a.similarity != b.similarity ? a.similarity > b.similarity : a.id < b.id
        }
        var best: [(id: SnippetID, similarity: Float)] = []
        for (id, row) in entries where row < similarity.count {
            let candidate = (id: id, similarity: similarity[row])
            if best.count == limit, let last = best.last, !precedes(candidate, last) { continue }
            guard include(id) else { continue }
            let position = best.firstIndex { precedes(candidate, $0) } ?? best.count
            best.insert(candidate, at: position)
            if best.count > limit { best.removeLast() }
        }
        return best
    }

    /// The similarity of `query` to each of `snippets` that has a vector.
    public func similarities(of query: [Float], to snippets: [SnippetID]) -> [SnippetID: Float] {
        let (vectors, rows) = lock.withLock { (self.vectors, snippets.compactMap { id in rowBySnippet[id].map { (id, $0) } }) }
        guard let vectors, query.count == vectors.dimension else { return [:] }
        let values = vectors.similarities(of: query, rows: rows.map(\.1))
        return Dictionary(zip(rows.map(\.0), values), uniquingKeysWith: { first, _ in first })
    }
}

/// How far meaning search had got when a question was answered: on the wire as the ask result's `meaning`.
public struct AskMeaning: Hashable, Sendable {
    public enum State: String, Hashable, Sendable, Codable {
        /// No encoder: ask matched words only.
        case off
        /// Some snippets are not embedded yet: only those that are were matched by meaning.
        case embedding
        /// Every snippet is embedded.
        case ready
    }

    public var state: State
    public var embedded: Int
    public var total: Int
    /// Why it is off, and how to turn it on.
    public var note: String?

    public init(state: State, embedded: Int, total: Int, note: String? = nil) {
        self.state = state
        self.embedded = embedded
        self.total = total
        self.note = note
    }
}
