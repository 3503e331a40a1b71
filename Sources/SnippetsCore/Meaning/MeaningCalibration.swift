/// Sets `MeaningThresholds` from probes made from the library itself, the way model qualification measures a model:
///
/// - own: a snippet's title asked as a question, the snippet present: a meaning pick should name it;
/// - held out: the same question with that snippet removed: whatever leads now is wrong, so its lead is a lead the
///   margin must not admit (counted only where the new leader shares no word with the question: meaning decides only
///   questions whose words name nothing, and a shared word is what gives a title probe a lead no paraphrase has);
/// - off topic: questions about things no snippet library of a person is likely to hold (`Lexicon.offTopicQuestions`,
///   kept only where no snippet shares their words), whose best match must not pass the similarity threshold.
///
/// The similarity is the higher of the off-topic best matches' 90th percentile plus 0.05 and the held-out leaders'
/// 75th percentile; the margin the 90th percentile of the leads of those wrong leaders that reach that similarity;
/// each within bounds, so a library of near-duplicates asks for a clearer lead than one of distinct snippets. The
/// margin never exceeds the anchor measured over ten batteries (0.13). Every titled snippet is probed up to
/// `maximumProbes`, chosen by content (`probes(from:)`), so the same library gives the same thresholds in any folder
/// and an edited one new ones. A library under `minimumSnippets` keeps the defaults: too few probes to measure anything.
public enum MeaningCalibration {
    public static let minimumSnippets = 12
    /// The most snippets probed.
    public static let maximumProbes = 160
    static let marginBounds: ClosedRange<Float> = 0.05...0.13
    static let similarityBounds: ClosedRange<Float> = 0.25...0.55
    static let nearnessBounds: ClosedRange<Float> = 0.25...0.5

    /// What a calibration measured: probes of each kind and how many the thresholds answer.
    public struct Figures: Hashable, Sendable, Codable {
        public var ownProbes: Int
        public var ownAnswered: Int
        public var heldOutProbes: Int
        public var heldOutAnswered: Int
        public var offTopicProbes: Int
        public var offTopicAnswered: Int
    }

    /// The thresholds for `library`, whose snippets' vectors are in `meaning`, probing with `embedder` (probe
    /// vectors are kept in `vectors`, so a second calibration of the same library encodes nothing).
    public static func thresholds(
        for library: SnippetLibrary, meaning: SnapshotMeaning, embedder: any SentenceEmbedder, vectors: MeaningVectors
    ) -> MeaningThresholds {
        func text(of snippet: Snippet) -> String { MeaningText.text(of: snippet) }
        let embedded = library.snippets.filter { meaning.hasVector($0.id) }
        guard embedded.count >= minimumSnippets else { return .defaults }
        let probed = probes(from: embedded)

        func vector(for text: String) -> [Float] {
            let key = MeaningText.key(of: text)
            if let row = vectors.row(forKey: key) { return vectors.vector(atRow: row) }
            let vector = embedder.embed([text])[0]
            vectors.add(key: key, vector: vector)
            return vector
        }
        func lead(of query: [Float], excluding excluded: SnippetID?) -> (best: Float, runnerUp: Float?, id: SnippetID?) {
            let top = meaning.nearest(to: query, limit: 2) { $0 != excluded }
            return (top.first?.similarity ?? 0, top.count > 1 ? top[1].similarity : nil, top.first?.id)
        }

        func stems(_ text: String) -> Set<String> {
            Set(AskWords.tokens(in: text).filter { !QuestionWord.isIgnorable($0) }.map(AskWords.stem))
        }
        var ownLeads: [(best: Float, runnerUp: Float?, right: Bool)] = []
        var heldOut: [(best: Float, runnerUp: Float?)] = []
        for snippet in probed {
            let query = vector(for: snippet.title.lowercased())
            let own = lead(of: query, excluding: nil)
            ownLeads.append((own.best, own.runnerUp, own.id == snippet.id))
            let without = lead(of: query, excluding: snippet.id)
            // Meaning decides only where words name nothing: a held-out probe whose new leader shares a word with it
            // is a question words would answer, so its lead says nothing about the questions meaning decides.
            if let leader = without.id.flatMap(library.snippet(withID:)),
                !stems(snippet.title).isDisjoint(with: stems(text(of: leader)))
            {
                continue
            }
            heldOut.append((without.best, without.runnerUp))
        }
        let vocabulary = Set(library.snippets.flatMap { AskWords.tokens(in: text(of: $0)) })
        var offTopic: [(best: Float, runnerUp: Float?)] = []
        for question in Lexicon.offTopicQuestions.texts {
            let words = AskWords.tokens(in: question).filter { !QuestionWord.isIgnorable($0) }
            guard !words.contains(where: vocabulary.contains) else { continue }
            let found = lead(of: vector(for: question), excluding: nil)
            offTopic.append((found.best, found.runnerUp))
        }
        guard heldOut.count + offTopic.count >= 8 else { return .defaults }

        // The similarity: above the far topics, and above three in four of the in-domain wrong leaders (a held-out
        // title's new leader is how near a question about something the library lacks comes to a snippet).
        let far = offTopic.isEmpty ? MeaningThresholds.defaults.similarity : percentile(0.9, of: offTopic.map(\.best)) + 0.05
        let near = heldOut.isEmpty ? 0 : percentile(0.75, of: heldOut.map(\.best))
        let similarity = clamp(max(far, near), similarityBounds)
        // The margin: nine in ten of the wrong leaders that reach that similarity lead by less.
        let reaching = (heldOut + offTopic).filter { $0.best >= similarity }
        let leads = (reaching.isEmpty ? heldOut + offTopic : reaching).map { $0.best - ($0.runnerUp ?? 0) }
        let margin = clamp(percentile(0.9, of: leads), marginBounds)
        // How near a snippet must be to be named as near in meaning when nothing is named as the answer: above the
        // far topics only (a held-out title's leader is near by design: that is what a suggestion is for).
        let nearness = clamp(offTopic.isEmpty ? MeaningThresholds.defaultNearness : far, nearnessBounds)
        var thresholds = MeaningThresholds(similarity: similarity, margin: margin, nearness: nearness)
        thresholds.measured = Figures(
            ownProbes: ownLeads.count,
            ownAnswered: ownLeads.filter { $0.right && thresholds.admits(best: $0.best, runnerUp: $0.runnerUp) }.count,
            heldOutProbes: heldOut.count, heldOutAnswered: heldOut.filter { thresholds.admits(best: $0.best, runnerUp: $0.runnerUp) }.count,
            offTopicProbes: offTopic.count, offTopicAnswered: offTopic.filter { thresholds.admits(best: $0.best, runnerUp: $0.runnerUp) }.count)
        return thresholds
    }

    /// The snippets probed: every one whose title has two words or more, up to `maximumProbes` evenly spaced in
    /// order of their text's digest (title and what is embedded). Chosen by content, never by identifier: an
    /// identifier holds the file's path, and the same library in another folder must calibrate the same (choosing
    /// by identifier made the margin of one library range from 0.06 to 0.13 with its folder).
    static func probes(from snippets: [Snippet]) -> [Snippet] {
        let titled = snippets.filter { $0.title.split(whereSeparator: \.isWhitespace).count >= 2 }
        let keyed = titled.map { snippet in
            (key: SHA1.hex(Array("\(snippet.title)\u{0}\(MeaningText.key(of: MeaningText.text(of: snippet)))".utf8)), snippet: snippet)
        }
        .sorted { $0.key < $1.key }
        guard keyed.count > maximumProbes else { return keyed.map(\.snippet) }
        return (0..<maximumProbes).map { keyed[$0 * keyed.count / maximumProbes].snippet }
    }

    /// What a calibration of `meaning`'s library depends on, as a hex digest: the snippets probed (identifiers and
    /// titles), the text each is embedded from (`SnapshotMeaning.textsRevision`), the encoder, and how calibration is
    /// done (`version`). The same digest means the same thresholds, so a calibration is kept per library revision
    /// (`MeaningService`) rather than made again by every command. Nil before the library was embedded.
    public static func fingerprint(of meaning: SnapshotMeaning, encoder identity: String) -> String? {
        guard let revision = meaning.textsRevision else { return nil }
        return SHA1.hex(Array("calibration \(version)\n\(identity)\n\(revision)".utf8))
    }

    /// Changes whenever `thresholds` would give other figures for the same library.
    static let version = 3

    /// The cache keys of every text a calibration of `library` may encode (a superset: every title), so a cache
    /// kept for the library keeps its probes too.
    public static func probeKeys(for library: SnippetLibrary) -> Set<String> {
        Set(library.snippets.map { MeaningText.key(of: $0.title.lowercased()) } + Lexicon.offTopicQuestions.texts.map(MeaningText.key(of:)))
    }

    static func percentile(_ fraction: Float, of values: [Float]) -> Float {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let position = Int((fraction * Float(sorted.count - 1)).rounded(.up))
        return sorted[min(max(position, 0), sorted.count - 1)]
    }

    static func clamp(_ value: Float, _ bounds: ClosedRange<Float>) -> Float {
        min(max(value, bounds.lowerBound), bounds.upperBound)
    }
}
