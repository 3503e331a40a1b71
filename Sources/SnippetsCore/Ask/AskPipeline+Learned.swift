import Foundation

/// How learned words (`LearnedWords`) take part in an ask: a separate input, counted like a snippet's description
/// in retrieval and in the picker, and only for words that are rare in the library's own text, so that a question
/// sharing only common words with what was learned is declined as it was before.
extension AskPipeline {
    /// A learned word counts only while at most this share of the library's snippets (and at least 2) contain it
    /// in their own text: a word many snippets hold says nothing about one of them.
    static let learnedWordMaximumShare = 0.1

    /// For each in-scope snippet that learned a word matching one of `terms`, the stems that count; empty when
    /// nothing was learned or nothing learned matches.
    func learnedMatches(for terms: [String], language: String?) -> [SnippetID: Set<String>] {
        guard !learned.isEmpty else { return [:] }
        let commonFrom = max(2, Int(Double(library.snippets.count) * Self.learnedWordMaximumShare))
        var result: [SnippetID: Set<String>] = [:]
        var seenStems: Set<String> = []
        for term in terms {
            let stem = AskWords.stem(term)
            guard seenStems.insert(stem).inserted else { continue }
            let learners = learned.snippets(learningStem: stem)
            guard !learners.isEmpty else { continue }
            guard index.search(terms: [term], limit: 1).totalMatches <= commonFrom else { continue }
            for id in learners {
                guard let snippet = library.snippet(withID: id), library.applies(snippet, toLanguage: language) else { continue }
                result[id, default: []].insert(stem)
            }
        }
        return result
    }

    /// The retrieval hits with learned words counted like description words (weight 2 × IDF, the IDF counting
    /// the snippets that learned the word too), all of one snippet's together at most what its rarest one would
    /// weigh as a title word (3 × IDF): what one insert taught never outweighs a snippet's own title. The index's
    /// hits re-scored, plus snippets found only by learned words, best first, at most `limit`.
    func hitsCountingLearned(
        _ taught: [SnippetID: Set<String>], terms: [String], language: String?, limit: Int
    ) -> [SearchHit] {
        var hits = index.search(terms: terms, language: language, limit: AskRequest.maximumLimit).hits
        let snippetCount = Double(max(library.snippets.count, 1))
        var idfByStem: [String: Double] = [:]
        var termByStem: [String: String] = [:]
        for term in terms {
            let stem = AskWords.stem(term)
            guard idfByStem[stem] == nil else { continue }
            termByStem[stem] = term
            let own = index.search(terms: [term], language: language, limit: 1).totalMatches
            let learners = taught.values.filter { $0.contains(stem) }.count
            idfByStem[stem] = log(1 + snippetCount / Double(max(1, min(own + learners, Int(snippetCount)))))
        }
        var positionByID: [SnippetID: Int] = [:]
        for (position, hit) in hits.enumerated() { positionByID[hit.snippetID] = position }
        for (id, stems) in taught.sorted(by: { $0.key < $1.key }) {
            let position = positionByID[id] ?? {
                hits.append(SearchHit(snippetID: id, score: 0, match: .description, matchedTerms: []))
                positionByID[id] = hits.count - 1
                return hits.count - 1
            }()
            let alreadyMatched = Set(hits[position].matchedTerms.map(AskWords.stem))
            var added = 0.0
            var heaviest = 0.0
            for stem in stems.sorted() where !alreadyMatched.contains(stem) {
                let idf = idfByStem[stem] ?? 0
                added += 2 * idf
                heaviest = max(heaviest, idf)
                if let term = termByStem[stem] { hits[position].matchedTerms.append(term) }
            }
            hits[position].score += min(added, 3 * heaviest)
        }
        let ranked = hits.enumerated().sorted { ($0.element.score, -$0.offset) > ($1.element.score, -$1.offset) }
        return ranked.prefix(limit).map(\.element)
    }

    /// How many of `candidates` learned a word of stem `stem` that counts for this question (and do not hold it in
    /// their own text, where the index already counted them).
    func learnedDocumentFrequency(of stem: String, in candidates: [SnippetEvidence]) -> Int {
        candidates.lazy.filter { $0.learnedStems.contains(stem) && !$0.ownStems.contains(stem) }.count
    }

    /// "Matched words you used before: owes, café." when learned words helped pick `picked`; empty otherwise.
    static func learnedNote(words: [QuestionWord], picked: [Snippet], candidates: [SnippetEvidence]) -> String {
        let pickedIDs = Set(picked.map(\.id))
        let helping = candidates.filter { pickedIDs.contains($0.snippet.id) && !$0.learnedStems.isEmpty }
        let used = words.filter { word in
            helping.contains { $0.learnedStems.contains(word.stem) && !$0.ownStems.contains(word.stem) }
        }.map(\.word)
        guard !used.isEmpty else { return "" }
        return "Matched words you used before: \(used.prefix(6).joined(separator: ", "))."
    }
}
