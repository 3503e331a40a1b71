/// Embeds a library's snippets for meaning search: each snippet's `MeaningText` is looked up in `vectors` by its
/// key and encoded only when missing, so an unchanged snippet is never encoded twice (the server keeps `vectors`
/// across reloads and on disk), and an edited one is encoded again because its text, and so its key, changed.
///
/// Runs wherever the caller runs it: the server on a thread of its own at low priority, the command line before it
/// asks. `shouldStop` is asked between batches (a newer library replaces this one); `progress` gets the snippets
/// done and the total after each batch.
public enum MeaningEmbedding {
    /// Snippets encoded per call of the embedder.
    public static let batchSize = 16

    /// Embeds `library` into `meaning` (attaching `embedder` and `vectors` to it first) and returns how many
    /// snippets needed encoding. `budget`: the most snippets to encode in this call (nil: all); the rest stay
    /// unembedded and `meaning.status` says so.
    @discardableResult
    public static func run(
        library: SnippetLibrary, facts: AskLibraryFacts, embedder: any SentenceEmbedder, vectors: MeaningVectors,
        budget: Int? = nil, shouldStop: () -> Bool = { false }, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in },
        keyed: (_ key: String) -> Void = { _ in }
    ) -> Int {
        let meaning = facts.meaning
        let snippets = library.snippets
        meaning.attach(embedder: embedder, vectors: vectors, total: snippets.count)
        var missing: [(id: SnippetID, key: String, text: String)] = []
        var known: [(SnippetID, Int)] = []
        var revision: [UInt64] = []
        revision.reserveCapacity(snippets.count)
        for snippet in snippets {
            // Not through the snapshot's evidence cache: a body's evidence is kept there only for the candidates
            // asks look at, not for every snippet of a library (about 20 MB at 13,000 snippets).
            let text = MeaningText.text(of: snippet)
            let key = MeaningText.key(of: text)
            keyed(key)
            revision.append(FNV1a.hash("\(snippet.id.rawValue)\t\(snippet.title)\t\(key)".utf8))
            if let row = vectors.row(forKey: key) { known.append((snippet.id, row)) } else { missing.append((snippet.id, key, text)) }
        }
        meaning.record(known)
        meaning.textsRevision = SHA1.hex(revision.sorted().flatMap { value in withUnsafeBytes(of: value.littleEndian, Array.init) })
        var done = known.count
        progress(done, snippets.count)
        var encoded = 0
        var start = 0
        while start < missing.count {
            if shouldStop() { break }
            if let budget, encoded >= budget { break }
            let size = min(batchSize, budget.map { $0 - encoded } ?? batchSize)
            let batch = missing[start..<min(start + size, missing.count)]
            let embeddings = embedder.embed(batch.map(\.text))
            meaning.record(zip(batch, embeddings).map { entry, vector in (entry.id, vectors.add(key: entry.key, vector: vector)) })
            encoded += batch.count
            done += batch.count
            start += batch.count
            progress(done, snippets.count)
        }
        return encoded
    }
}
