import Foundation

/// What asks compute about single snippets, kept for the life of one library snapshot (`AskLibraryFacts` holds
/// one): each snippet's evidence (its plain body, sentences and stems) and its quotable sentences. Each is
/// computed the first time an ask needs it, so an ask no longer costs in proportion to its candidates' bodies:
/// "which snippets are about contracts?" over large Solidity bodies stems and searches them once per snapshot.
///
/// Thread-safe (one lock, never held while computing: two asks may compute the same entry, and the first kept
/// wins). Bounded: past `budget` bytes of kept text, entries are computed per ask as before and not kept.
final class AskSnapshotCaches: @unchecked Sendable {
    /// The most bytes (bodies and file entries, roughly) the caches keep.
    let budget: Int
    private let lock = NSLock()
    private var evidenceByID: [SnippetID: SnippetEvidence] = [:]
    private var quotesByID: [SnippetID: (entry: [UInt8], sentences: [QuotableSentence])] = [:]
    private var kept = 0

    /// 64 MiB: the whole 13,000-snippet shared corpus keeps well under it.
    static let defaultBudget = 64 << 20

    init(budget: Int = AskSnapshotCaches.defaultBudget) {
        self.budget = budget
    }

    /// The bytes kept so far.
    var keptBytes: Int { lock.withLock { kept } }

    /// The evidence of `snippet`, without learned stems (an ask adds its own).
    func evidence(of snippet: Snippet) -> SnippetEvidence {
        if let known = lock.withLock({ evidenceByID[snippet.id] }), known.snippet.body == snippet.body,
            known.snippet.title == snippet.title, known.snippet.description == snippet.description
        {
            return known
        }
        let evidence = SnippetEvidence(snippet)
        let cost = 64 + 3 * snippet.body.utf8.count + 24 * evidence.ownStems.count
        lock.withLock {
            guard evidenceByID[snippet.id] == nil, kept + cost <= budget else { return }
            evidenceByID[snippet.id] = evidence
            kept += cost
        }
        return evidence
    }

    /// The quotable sentences of `snippet` in `file` (its file as read now): kept with the bytes of its entry, and
    /// reused only while the file holds exactly those bytes at the snippet's range, so a quote is never of text the
    /// file no longer has.
    func quotableSentences(of snippet: Snippet, in file: QuoteFile) -> [QuotableSentence] {
        guard let range = QuoteFinder.entryRange(of: snippet, in: file) else { return [] }
        if let known = lock.withLock({ quotesByID[snippet.id] }), known.entry.count == range.count,
            file.bytes[range].elementsEqual(known.entry)
        {
            return known.sentences
        }
        let sentences = QuoteFinder.sentences(of: snippet, in: file)
        let cost = 64 + range.count + sentences.reduce(0) { $0 + 96 + $1.text.utf8.count }
        lock.withLock {
            guard kept + cost <= budget else { return }
            if let old = quotesByID[snippet.id] { kept -= 64 + old.entry.count + old.sentences.reduce(0) { $0 + 96 + $1.text.utf8.count } }
            quotesByID[snippet.id] = (Array(file.bytes[range]), sentences)
            kept += cost
        }
        return sentences
    }
}
