import Foundation

/// How well one candidate's trusted text covers the question.
public struct CandidateSupport: Hashable, Sendable {
    public var snippetID: SnippetID
    /// The share (0...1) of the question's weighted content words found in the candidate's trusted text.
    public var coverage: Double
    /// The question words it contains.
    public var matchedWords: [String]

    public init(snippetID: SnippetID, coverage: Double, matchedWords: [String]) {
        self.snippetID = snippetID
        self.coverage = coverage
        self.matchedWords = matchedWords
    }
}

/// The deterministic picker: cites the candidates retrieval strongly supports and abstains when matches are weak.
///
/// Each content word of the question weighs by how rare it is in the library (`ln(1 + N / df)`); a word no snippet
/// contains weighs most, because a question about something absent ("my passport number") must not be answered by
/// the one common word it shares with the library ("number"). A candidate's coverage is the weight of the question
/// words its trusted text contains (never its instruction-like sentences) over the weight of all of them. A candidate
/// is cited when its coverage reaches `minimumCoverage` and is close to the best (`relativeCoverage`).
public struct CandidatePicker: Hashable, Sendable {
    /// The least coverage a cited candidate has.
    public var minimumCoverage: Double
    /// A cited candidate's coverage is at least this share of the best candidate's.
    public var relativeCoverage: Double
    /// The most snippets one answer names.
    public var maximumPicks: Int

    public init(minimumCoverage: Double = 0.5, relativeCoverage: Double = 0.75, maximumPicks: Int = 4) {
        self.minimumCoverage = minimumCoverage
        self.relativeCoverage = relativeCoverage
        self.maximumPicks = maximumPicks
    }

    /// The weight of a question word that `documentFrequency` of `snippetCount` snippets contain. A word no snippet
    /// contains counts as if half a snippet did: heavier than the rarest word the library has.
    public static func weight(documentFrequency: Int, snippetCount: Int) -> Double {
        log(1 + Double(max(snippetCount, 1)) / (documentFrequency > 0 ? Double(documentFrequency) : 0.5))
    }

    /// Each candidate's support, in candidate order. `weights` has one entry per question word.
    func supports(for words: [QuestionWord], weights: [Double], candidates: [SnippetEvidence]) -> [CandidateSupport] {
        let total = weights.reduce(0, +)
        return candidates.map { evidence in
            let stems = evidence.stems
            var covered = 0.0
            var matched: [String] = []
            for (word, weight) in zip(words, weights) where word.isMatched(by: stems) {
                covered += weight
                matched.append(word.word)
            }
            return CandidateSupport(
                snippetID: evidence.snippet.id, coverage: total > 0 ? covered / total : 0, matchedWords: matched)
        }
    }

    /// The identifiers to cite, best first; empty to abstain.
    public func picks(from supports: [CandidateSupport]) -> [SnippetID] {
        guard let best = supports.map(\.coverage).max(), best >= minimumCoverage else { return [] }
        let threshold = max(minimumCoverage, best * relativeCoverage)
        let ranked = supports.enumerated()
            .filter { $0.element.coverage >= threshold }
            .sorted { ($0.element.coverage, -$0.offset) > ($1.element.coverage, -$1.offset) }
        return ranked.prefix(maximumPicks).map(\.element.snippetID)
    }
}
