import Foundation

/// A literal token index over a library's triggers, titles, descriptions and bodies.
///
/// Built once per library load. Tokens (see `Tokenizer`) get integer identifiers; each token has a posting list of
/// the snippets containing it, with the fields it occurs in. Triggers are kept lowercased in a byte-sorted table
/// so exact and prefix lookups are two binary searches.
///
/// Ranking, explainable and deterministic:
/// - Tier first: an exact trigger match with the query's case, then an exact trigger match ignoring case, then a
///   trigger prefix match, then snippets that match only through tokens.
/// - Within a tier, score: each query term adds `weight × idf` for the best field it occurs in (trigger or title
///   3, description 2, body 1), with `idf = ln(1 + N / df)` over all `N` snippets, so rare words count more. A
///   term that matches several index tokens (the last typed word as a prefix, or a stem) counts once, in its best
///   field, with `df` the sum of those tokens' document frequencies (at most `N`).
/// - Layers: among trigger matches (exact or prefix), a snippet from an earlier layer ranks first; among exact
///   trigger matches in one layer, the higher `priority`, then the one loaded first (as `LibraryConflicts` says).
/// - Ties: the earlier layer, then higher `priority`, then the shorter shortest trigger, then title, then identifier.
///
/// The reported `score` adds a tier bonus (exact trigger 1000, +100 for exact case; prefix 500) to the term score.
///
/// A trigger of several words whose snippet says so (`Snippet.triggerNeedsEveryWord`: UltiSnips' `"if else"`) is
/// matched as a trigger prefix only by a query that reaches its second word (`if e`), never by its first word alone
/// (`if`, a common word); its words still find it as tokens.
public struct TokenIndex: Sendable {
    public private(set) var library: SnippetLibrary

    /// Posting bit: the token occurs in the title.
    static let titleField: UInt32 = 1
    /// Posting bit: the token occurs in the description.
    static let descriptionField: UInt32 = 2
    /// Posting bit: the token occurs in the body.
    static let bodyField: UInt32 = 4
    /// Posting bit: the token occurs in a trigger (weighted like the title).
    static let triggerField: UInt32 = 8
    /// All field bits of a posting.
    static let fieldMask: UInt32 = 15
    /// A posting is `snippet << snippetShift | fields`.
    static let snippetShift: UInt32 = 4
    /// The shortest last word (in UTF-8 bytes) that `search(_:)` expands as a prefix over the token vocabulary;
    /// shorter words match tokens exactly (triggers still match by prefix at any length).
    public static let minimumTokenPrefixLength = 3

    private let snippetCount: Int
    private let tokens: TokenTable
    /// Token identifiers in byte order of their text, for prefix ranges.
    private let sortedTokens: [Int32]
    /// Postings of token `t`: `postings[postingStarts[t] ..< postingStarts[t + 1]]`, each `snippet << 4 | fields`.
    private let postingStarts: [Int32]
    private let postings: [UInt32]
    /// Stem → the tokens (plain ASCII words) that have it.
    private let stemGroups: [String: [Int32]]
    /// Lowercased triggers, entry `e` belonging to `triggerSnippets[e]`; `sortedTriggers` is their byte order.
    private let triggerTexts: ByteTable
    private let triggerSnippets: [Int32]
    private let triggerOriginals: [String]
    private let sortedTriggers: [Int32]
    /// Whether trigger entry `e` is several words that only a query of several words matches as a prefix.
    private let triggerNeedsSecondWord: [Bool]
    /// The most whitespace-separated words any trigger has (1 when none has several, 0 when none has any).
    public let maximumTriggerWords: Int
    /// The triggers of snippets offered inside a word (`Snippet.isInWord`), as written, with their snippets in
    /// library order; and their distinct UTF-8 lengths, so a lookup costs one probe per length.
    private let inWordTriggers: [String: [Int32]]
    private let inWordTriggerLengths: [Int]
    /// The scopes of snippet `s`: `scopeIDs[scopeStarts[s] ..< scopeStarts[s + 1]]`; empty means global.
    private let scopeStarts: [Int32]
    private let scopeIDs: [Int32]
    private let scopeNumbers: [String: Int32]
    /// Each snippet's `priority`.
    private let priorities: [Int32]
    /// UTF-8 length of each snippet's shortest trigger (`Int32.max` when it has none), for tie-breaking.
    private let shortestTrigger: [Int32]
    /// Each snippet's layer precedence (0 for the first layer), so a trigger match from an earlier layer ranks first.
    private let layerRanks: [Int32]

    /// This index over `annotated`, a library with the same snippets in the same order as the one indexed (the
    /// same load with diagnostics or layer revisions added, as `LayerLoading.annotating` adds them), so
    /// annotating a library never costs a second index. Nil when the snippets differ.
    public func serving(_ annotated: SnippetLibrary) -> TokenIndex? {
        guard annotated.layers == library.layers, annotated.snippets.count == library.snippets.count,
            zip(annotated.snippets, library.snippets).allSatisfy({ $0.id == $1.id && $0.layer == $1.layer })
        else { return nil }
        var index = self
        index.library = annotated
        return index
    }

    public init(library: SnippetLibrary) {
        self.library = library
        let snippets = library.snippets
        snippetCount = snippets.count
        // Two independent halves at a time (each large library half is itself split across processors): the
        // tokens and their occurrences beside the per-snippet fields, then the postings beside the stems and the
        // token order.
        let parallel = snippets.count >= 8192
        var tokenization: (tokens: TokenTable, occurrences: [UInt64])?
        var fields: Fields?
        Self.both(parallel, { tokenization = Self.occurrences(in: snippets) }, { fields = Fields(library: library) })
        let (tokens, occurrences) = tokenization!
        var grouped: (starts: [Int32], postings: [UInt32])?
        var vocabulary: (stemGroups: [String: [Int32]], sortedTokens: [Int32])?
        Self.both(
            parallel, { grouped = Self.postings(occurrences, tokenCount: tokens.count) },
            { vocabulary = (Self.stemGroups(of: tokens), tokens.texts.sortedOrder()) })

        self.tokens = tokens
        self.sortedTokens = vocabulary!.sortedTokens
        self.postingStarts = grouped!.starts
        self.postings = grouped!.postings
        self.stemGroups = vocabulary!.stemGroups
        let fieldValues = fields!
        self.triggerTexts = fieldValues.triggerTexts
        self.triggerSnippets = fieldValues.triggerSnippets
        self.triggerOriginals = fieldValues.triggerOriginals
        self.sortedTriggers = fieldValues.sortedTriggers
        self.triggerNeedsSecondWord = fieldValues.triggerNeedsSecondWord
        self.maximumTriggerWords = fieldValues.maximumTriggerWords
        self.inWordTriggers = fieldValues.inWordTriggers
        self.inWordTriggerLengths = Set(fieldValues.inWordTriggers.keys.map(\.utf8.count)).sorted(by: >)
        self.scopeStarts = fieldValues.scopeStarts
        self.scopeIDs = fieldValues.scopeIDs
        self.scopeNumbers = fieldValues.scopeNumbers
        self.shortestTrigger = fieldValues.shortestTrigger
        self.priorities = fieldValues.priorities
        self.layerRanks = fieldValues.layerRanks
    }

    /// Runs `first` and `second`, at the same time when `parallel`. Each writes only its own result.
    private static func both(_ parallel: Bool, _ first: () -> Void, _ second: () -> Void) {
        guard parallel else {
            first()
            second()
            return
        }
        withoutActuallyEscaping(first) { first in
            withoutActuallyEscaping(second) { second in
                nonisolated(unsafe) let work = [first, second]
                DispatchQueue.concurrentPerform(iterations: 2) { part in work[part]() }
            }
        }
    }

    /// What the index keeps per snippet: triggers (lowercased, sorted), scopes, priority, layer precedence.
    private struct Fields {
        var triggerTexts = ByteTable()
        var triggerSnippets: [Int32] = []
        var triggerOriginals: [String] = []
        var sortedTriggers: [Int32] = []
        var triggerNeedsSecondWord: [Bool] = []
        var maximumTriggerWords = 0
        var inWordTriggers: [String: [Int32]] = [:]
        var scopeStarts: [Int32] = [0]
        var scopeIDs: [Int32] = []
        var scopeNumbers: [String: Int32] = [:]
        var shortestTrigger: [Int32] = []
        var priorities: [Int32] = []
        var layerRanks: [Int32] = []

        init(library: SnippetLibrary) {
            let snippets = library.snippets
            priorities.reserveCapacity(snippets.count)
            scopeStarts.reserveCapacity(snippets.count + 1)
            shortestTrigger.reserveCapacity(snippets.count)
            layerRanks = library.snippetLayerRanks().map { Int32(clamping: $0) }
            // Fields are read one at a time: copying whole snippets would retain every field of each.
            for number in snippets.indices {
                var shortest = Int32.max
                for trigger in snippets[number].triggers {
                    triggerTexts.append(Array(trigger.lowercased().utf8))
                    triggerSnippets.append(Int32(number))
                    triggerOriginals.append(trigger)
                    let words = TokenIndex.wordCount(of: trigger)
                    triggerNeedsSecondWord.append(words > 1 && snippets[number].triggerNeedsEveryWord)
                    maximumTriggerWords = max(maximumTriggerWords, words)
                    if snippets[number].isInWord, !trigger.isEmpty { inWordTriggers[trigger, default: []].append(Int32(number)) }
                    shortest = min(shortest, Int32(trigger.utf8.count))
                }
                shortestTrigger.append(shortest)
                priorities.append(Int32(clamping: snippets[number].priority))
                for scope in snippets[number].scopes {
                    let id: Int32
                    if let existing = scopeNumbers[scope] {
                        id = existing
                    } else {
                        id = Int32(scopeNumbers.count)
                        scopeNumbers[scope] = id
                    }
                    scopeIDs.append(id)
                }
                scopeStarts.append(Int32(scopeIDs.count))
            }
            sortedTriggers = triggerTexts.sortedOrder()
        }
    }

    /// Occurrences grouped by token (a counting sort keeps snippet order within each token): token `t`'s postings
    /// are `postings[starts[t] ..< starts[t + 1]]`.
    private static func postings(_ occurrences: [UInt64], tokenCount: Int) -> (starts: [Int32], postings: [UInt32]) {
        var postingStarts = [Int32](repeating: 0, count: tokenCount + 1)
        for occurrence in occurrences { postingStarts[Int(occurrence >> 32) + 1] += 1 }
        for id in 0..<tokenCount { postingStarts[id + 1] += postingStarts[id] }
        var postings = [UInt32](repeating: 0, count: occurrences.count)
        var nextSlot = postingStarts
        for occurrence in occurrences {
            let id = Int(occurrence >> 32)
            postings[Int(nextSlot[id])] = UInt32(truncatingIfNeeded: occurrence)
            nextSlot[id] += 1
        }
        return (postingStarts, postings)
    }

    /// Stem → the tokens that have it, for the stemmable tokens.
    private static func stemGroups(of tokens: TokenTable) -> [String: [Int32]] {
        var stemGroups: [String: [Int32]] = [:]
        for id in 0..<tokens.count {
            let token = tokens.texts.string(id)
            if Self.isStemmable(token) {
                stemGroups[EnglishStemmer.stem(token), default: []].append(Int32(id))
            }
        }
        return stemGroups
    }

    /// The interned tokens of `snippets` and one occurrence per (token, snippet), in snippet order. Large libraries
    /// are tokenized in chunks at the same time, then merged chunk by chunk: interning each chunk's tokens in order
    /// gives every token the identifier a single pass would (the order of first appearance).
    static func occurrences(in snippets: [Snippet], chunks: Int? = nil) -> (TokenTable, [UInt64]) {
        let chunkCount =
            chunks ?? (snippets.count < 8192 ? 1 : min(16, max(2, ProcessInfo.processInfo.activeProcessorCount * 2)))
        let chunkSize = (snippets.count + chunkCount - 1) / max(chunkCount, 1)
        @Sendable func tokenize(_ range: Range<Int>) -> OccurrenceBuilder {
            var builder = OccurrenceBuilder()
            builder.occurrences.reserveCapacity(range.count * 32)
            // Fields are read one at a time: copying whole snippets would retain every field of each.
            for number in range {
                for trigger in snippets[number].triggers { builder.add(trigger, snippet: number, field: triggerField) }
                builder.add(snippets[number].title, snippet: number, field: titleField)
                if let description = snippets[number].description { builder.add(description, snippet: number, field: descriptionField) }
                builder.add(snippets[number].body, snippet: number, field: bodyField)
            }
            return builder
        }
        guard chunkCount > 1 else {
            let builder = tokenize(0..<snippets.count)
            return (builder.tokens, builder.occurrences)
        }
        let parts = UnsafeMutableBufferPointer<OccurrenceBuilder>.allocate(capacity: chunkCount)
        parts.initialize(repeating: OccurrenceBuilder())
        defer {
            parts.deinitialize()
            parts.deallocate()
        }
        // Each iteration writes only its own slot.
        nonisolated(unsafe) let slots = parts
        DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
            slots[chunk] = tokenize(min(snippets.count, chunk * chunkSize)..<min(snippets.count, (chunk + 1) * chunkSize))
        }
        var tokens = TokenTable()
        var occurrences: [UInt64] = []
        occurrences.reserveCapacity(parts.reduce(0) { $0 + $1.occurrences.count })
        for part in parts {
            let global = (0..<part.tokens.count).map { local in part.tokens.texts.withBytes(of: local) { tokens.intern($0) } }
            for occurrence in part.occurrences {
                occurrences.append(UInt64(global[Int(occurrence >> 32)]) << 32 | (occurrence & 0xFFFF_FFFF))
            }
        }
        return (tokens, occurrences)
    }

    /// Whether the stemmer could change `token`: ASCII letters only, two or more of them (`is` → be).
    private static func isStemmable(_ token: String) -> Bool {
        var count = 0
        for byte in token.utf8 {
            guard byte >= 0x61 && byte <= 0x7A else { return false }
            count += 1
        }
        return count > 1
    }

    /// How many distinct tokens the index holds.
    public var tokenCount: Int { tokens.count }

    /// Whether `search(terms: [term])` can match anything: the token itself or one of its stem is in the index.
    /// Constant time, whatever the library's size.
    public func holds(term: String) -> Bool {
        let lowered = term.lowercased()
        return tokens.find(lowered) != nil || stemGroups[EnglishStemmer.stem(lowered)] != nil
    }

    /// Every token of the index with how many snippets hold it, in identifier order (for vocabulary built once
    /// per library, such as ask's `WordNeighbourhood`).
    public func forEachToken(_ body: (String, Int) -> Void) {
        for id in 0..<tokens.count {
            body(tokens.texts.string(id), Int(postingStarts[id + 1] - postingStarts[id]))
        }
    }

    /// Ranked snippets for `query` as a person types it (a trigger being typed, or words).
    /// `language` nil searches every snippet; otherwise the language's snippets plus global ones.
    ///
    /// The whole query (trimmed of surrounding whitespace) is matched against triggers, ignoring case, exactly and
    /// as a prefix; its tokens are matched against trigger, title, description and body tokens, the last one also
    /// as a prefix when it ends the query (no trailing space) and has at least `minimumTokenPrefixLength` bytes.
    /// A snippet matched by its whole trigger does not count its trigger's tokens again. An empty query matches
    /// nothing.
    public func search(_ query: String, language: String? = nil, limit: Int = 20) -> SearchResults {
        let trimmed = Self.trimmingWhitespace(query)
        guard !trimmed.isEmpty else { return SearchResults(hits: [], totalMatches: 0) }
        var terms: [String] = []
        var prefixTerms: [Bool] = []
        Tokenizer.forEachToken(in: query) { token, reachesEnd in
            if let existing = terms.firstIndex(of: token) {
                prefixTerms[existing] = prefixTerms[existing] || reachesEnd
            } else if terms.count < Accumulator.maximumTerms {
                terms.append(token)
                prefixTerms.append(reachesEnd)
            }
        }
        var accumulator = Accumulator(snippetCount: snippetCount)
        forEachTriggerMatch(of: trimmed) { snippet, tier in accumulator.matchTrigger(snippet, tier: tier) }

        for (termNumber, term) in terms.enumerated() {
            var tokens: [Int32] = []
            if prefixTerms[termNumber] && term.utf8.count >= Self.minimumTokenPrefixLength {
                let range = self.tokens.texts.prefixRange(of: Array(term.utf8), in: sortedTokens)
                tokens = Array(sortedTokens[range])
            } else if let id = self.tokens.find(term) {
                tokens = [id]
            }
            accumulate(tokens, term: termNumber, skippingTriggersOfTriggerMatches: true, into: &accumulator)
        }
        return results(
            from: accumulator, terms: terms, triggerQuery: trimmed.lowercased(), language: language, limit: limit)
    }

    /// Calls `body` with each snippet whose trigger is `typed` (a tier of exact match) or starts with it (ignoring
    /// case), once per matching trigger: one binary-searched range holds them all. A trigger that needs a second
    /// word (`Snippet.triggerNeedsEveryWord`) is left out as a prefix match unless `typed` is several words too.
    private func forEachTriggerMatch(of typed: String, _ body: (Int, UInt8) -> Void) {
        let key = Array(typed.lowercased().utf8)
        let typedIsMultiWord = Self.wordCount(of: typed) > 1
        for position in triggerTexts.prefixRange(of: key, in: sortedTriggers) {
            let entry = Int(sortedTriggers[position])
            let tier: UInt8
            if triggerTexts.length(of: entry) == key.count {
                tier = triggerOriginals[entry] == typed ? Tier.exactCase : Tier.exact
            } else {
                guard typedIsMultiWord || !triggerNeedsSecondWord[entry] else { continue }
                tier = Tier.prefix
            }
            body(Int(triggerSnippets[entry]), tier)
        }
    }

    /// Ranked snippets whose trigger is `typed` or starts with it (ignoring case, as `search` matches triggers),
    /// without looking at words: what completion asks of the words before the cursor that a trigger of several
    /// words may span. Ranked as `search` ranks trigger matches; `matchedTerms` is the lowercased query.
    public func triggerMatches(_ typed: String, language: String? = nil, limit: Int = 20) -> SearchResults {
        guard !typed.isEmpty else { return SearchResults(hits: [], totalMatches: 0) }
        var tiers: [Int: UInt8] = [:]
        forEachTriggerMatch(of: typed) { snippet, tier in tiers[snippet] = min(tiers[snippet] ?? tier, tier) }
        let allowedScopes = allowedScopes(forLanguage: language)
        let snippets = library.snippets
        let ranked = tiers.filter { applies($0.key, allowedScopes: allowedScopes) }.map { number, tier in
            Candidate(
                number: number, tier: tier, score: 0, priority: priorities[number],
                shortestTrigger: shortestTrigger[number], layerRank: layerRanks[number])
        }.sorted { isRankedBefore($0, $1, snippets) }
        let lowered = typed.lowercased()
        let hits = ranked.prefix(max(limit, 0)).map { candidate in
            SearchHit(
                snippetID: snippets[candidate.number].id,
                score: candidate.tier == Tier.exactCase ? 1100 : candidate.tier == Tier.exact ? 1000 : 500,
                match: candidate.tier <= Tier.exact ? .exactTrigger : .triggerPrefix, matchedTerms: [lowered])
        }
        return SearchResults(hits: hits, totalMatches: ranked.count)
    }

    /// Whether a snippet of `language` is offered inside a word (`Snippet.isInWord`): then more typing may make its
    /// trigger end the text, so a list before that is not the whole answer.
    public func hasInWordTriggers(language: String? = nil) -> Bool {
        guard !inWordTriggers.isEmpty else { return false }
        let allowedScopes = allowedScopes(forLanguage: language)
        return inWordTriggers.values.contains { numbers in numbers.contains { applies(Int($0), allowedScopes: allowedScopes) } }
    }

    /// The snippets offered inside a word (`Snippet.isInWord`) whose whole trigger ends `text` (compared as
    /// written, as UltiSnips compares it), each with that trigger, ranked as exact trigger matches are. Costs one
    /// lookup per distinct length of such triggers, whatever the library's size.
    public func inWordMatches(endingWith text: String, language: String? = nil) -> [InWordMatch] {
        guard !inWordTriggers.isEmpty else { return [] }
        let bytes = text.utf8
        var found: [(candidate: Candidate, trigger: String)] = []
        let allowedScopes = allowedScopes(forLanguage: language)
        for length in inWordTriggerLengths where length <= bytes.count {
            let ending = String(decoding: bytes.suffix(length), as: UTF8.self)
            guard let numbers = inWordTriggers[ending] else { continue }
            for number32 in numbers {
                let number = Int(number32)
                guard applies(number, allowedScopes: allowedScopes) else { continue }
                found.append((
                    Candidate(
                        number: number, tier: Tier.exactCase, score: 0, priority: priorities[number],
                        shortestTrigger: shortestTrigger[number], layerRank: layerRanks[number]),
                    ending))
            }
        }
        let snippets = library.snippets
        return found.sorted { isRankedBefore($0.candidate, $1.candidate, snippets) }.map { match in
            InWordMatch(
                hit: SearchHit(
                    snippetID: snippets[match.candidate.number].id, score: 1100, match: .exactTrigger,
                    matchedTerms: [match.trigger.lowercased()]),
                trigger: match.trigger)
        }
    }

    /// How many whitespace-separated words `text` has.
    static func wordCount(of text: String) -> Int {
        var count = 0
        var inWord = false
        for scalar in text.unicodeScalars {
            let isSpace = scalar.properties.isWhitespace
            if !isSpace && !inWord { count += 1 }
            inWord = !isSpace
        }
        return count
    }

    /// Ranked snippets matching any of `terms` (already tokens: lowercase words), best first.
    ///
    /// Each term matches the index token equal to it and every token with the same `EnglishStemmer` stem
    /// (`payments` finds `payment`, `paid` finds `pay`). Score: the sum over matched terms of field weight (best
    /// field) × the term's IDF. Trigger tokens count like title tokens (and report `.title`); no prefix matching.
    public func search(terms: [String], language: String? = nil, limit: Int = 20) -> SearchResults {
        var distinctTerms: [String] = []
        for term in terms {
            let lowered = term.lowercased()
            if !lowered.isEmpty, !distinctTerms.contains(lowered), distinctTerms.count < Accumulator.maximumTerms {
                distinctTerms.append(lowered)
            }
        }
        var accumulator = Accumulator(snippetCount: snippetCount)
        for (termNumber, term) in distinctTerms.enumerated() {
            var tokens: [Int32] = []
            if let id = self.tokens.find(term) { tokens.append(id) }
            for id in stemGroups[EnglishStemmer.stem(term)] ?? [] where !tokens.contains(id) {
                tokens.append(id)
            }
            accumulate(tokens, term: termNumber, skippingTriggersOfTriggerMatches: false, into: &accumulator)
        }
        return results(from: accumulator, terms: distinctTerms, triggerQuery: nil, language: language, limit: limit)
    }

    /// How many snippets (of those that apply in `language`; all when nil) `search(terms:language:)` would match
    /// for `terms`: its `totalMatches`, counted from the terms' postings only, without ranking or touching a slot
    /// per snippet of the library.
    public func documentFrequency(of terms: [String], language: String? = nil) -> Int {
        var tokens: [Int32] = []
        for term in terms.prefix(Accumulator.maximumTerms) {
            let lowered = term.lowercased()
            guard !lowered.isEmpty else { continue }
            if let id = self.tokens.find(lowered), !tokens.contains(id) { tokens.append(id) }
            for id in stemGroups[EnglishStemmer.stem(lowered)] ?? [] where !tokens.contains(id) { tokens.append(id) }
        }
        let allowedScopes = allowedScopes(forLanguage: language)
        // Each token's postings are in snippet order: a merge counts each snippet once.
        var cursors = tokens.map { Int(postingStarts[Int($0)]) }
        let ends = tokens.map { Int(postingStarts[Int($0) + 1]) }
        var count = 0
        while true {
            var smallest = UInt32.max
            for (number, cursor) in cursors.enumerated() where cursor < ends[number] {
                smallest = min(smallest, postings[cursor] >> Self.snippetShift)
            }
            guard smallest != .max else { return count }
            for number in cursors.indices where cursors[number] < ends[number] && postings[cursors[number]] >> Self.snippetShift == smallest {
                cursors[number] += 1
            }
            if applies(Int(smallest), allowedScopes: allowedScopes) { count += 1 }
        }
    }

    /// The inverse document frequency of a token found in `documentFrequency` snippets.
    private func inverseDocumentFrequency(_ documentFrequency: Int) -> Float {
        Float(log(1 + Double(snippetCount) / Double(max(documentFrequency, 1))))
    }

    /// Adds the postings of `tokens` (the index tokens a query term matches) as matches of term `term`.
    ///
    /// The term's IDF counts every snippet holding any of the tokens (the sum of their document frequencies,
    /// capped at `N`), so a typed prefix or a stem weighs as one word whichever completion or inflection a snippet
    /// holds. With `skippingTriggersOfTriggerMatches`, a snippet already matched by its whole trigger does not
    /// count its trigger's tokens again.
    private func accumulate(
        _ tokens: [Int32], term: Int, skippingTriggersOfTriggerMatches: Bool, into accumulator: inout Accumulator
    ) {
        var documentFrequency = 0
        for token in tokens {
            documentFrequency += Int(postingStarts[Int(token) + 1] - postingStarts[Int(token)])
        }
        let idf = inverseDocumentFrequency(min(documentFrequency, snippetCount))
        for token in tokens {
            let start = Int(postingStarts[Int(token)])
            let end = Int(postingStarts[Int(token) + 1])
            accumulatePostings(start..<end, term: term, idf: idf, skippingTriggersOfTriggerMatches, &accumulator)
        }
    }

    private func accumulatePostings(
        _ range: Range<Int>, term: Int, idf: Float, _ skippingTriggersOfTriggerMatches: Bool,
        _ accumulator: inout Accumulator
    ) {
        let start = range.lowerBound
        let end = range.upperBound
        postings.withUnsafeBufferPointer { buffer in
            for position in start..<end {
                let posting = buffer[position]
                let number = Int(posting >> Self.snippetShift)
                var fields = posting & Self.fieldMask
                if skippingTriggersOfTriggerMatches && accumulator.slots[number].tier != Tier.tokens {
                    fields &= ~Self.triggerField
                    if fields == 0 { continue }
                }
                let weight: Float
                let kind: MatchKind
                if fields & (Self.titleField | Self.triggerField) != 0 {
                    weight = 3
                    kind = .title
                } else if fields & Self.descriptionField != 0 {
                    weight = 2
                    kind = .description
                } else {
                    weight = 1
                    kind = .body
                }
                accumulator.matchTerm(number, term: term, contribution: weight * idf, kind: kind)
            }
        }
    }

    /// Whether snippet `number` applies under `allowedScopes` (nil: every snippet applies).
    private func applies(_ number: Int, allowedScopes: [Bool]?) -> Bool {
        guard let allowedScopes else { return true }
        let start = Int(scopeStarts[number])
        let end = Int(scopeStarts[number + 1])
        if start == end { return true }
        for position in start..<end where allowedScopes[Int(scopeIDs[position])] { return true }
        return false
    }

    /// Which scope numbers apply in `language`, or nil when every snippet applies.
    private func allowedScopes(forLanguage language: String?) -> [Bool]? {
        guard let language else { return nil }
        var allowed = [Bool](repeating: false, count: scopeNumbers.count)
        for scope in library.scopes(forLanguage: language) {
            if let number = scopeNumbers[scope] { allowed[Int(number)] = true }
        }
        return allowed
    }

    private func results(
        from accumulator: Accumulator, terms: [String], triggerQuery: String?, language: String?, limit: Int
    ) -> SearchResults {
        let allowedScopes = allowedScopes(forLanguage: language)
        let snippets = library.snippets
        var top: [Candidate] = []
        top.reserveCapacity(min(max(limit, 0), 64) + 1)
        var totalMatches = 0
        for number32 in accumulator.touched {
            let number = Int(number32)
            guard applies(number, allowedScopes: allowedScopes) else { continue }
            totalMatches += 1
            guard limit > 0 else { continue }
            let slot = accumulator.slots[number]
            let candidate = Candidate(
                number: number, tier: slot.tier, score: Double(slot.score), priority: priorities[number],
                shortestTrigger: shortestTrigger[number], layerRank: layerRanks[number])
            if top.count == limit {
                guard isRankedBefore(candidate, top[top.count - 1], snippets) else { continue }
                top.removeLast()
            }
            var low = 0
            var high = top.count
            while low < high {
                let middle = (low + high) / 2
                if isRankedBefore(top[middle], candidate, snippets) { low = middle + 1 } else { high = middle }
            }
            top.insert(candidate, at: low)
        }
        let hits = top.map { candidate -> SearchHit in
            let slot = accumulator.slots[candidate.number]
            var matchedTerms: [String] = []
            if slot.tier < Tier.tokens, let triggerQuery { matchedTerms.append(triggerQuery) }
            for (termNumber, term) in terms.enumerated() where slot.termMask & (1 << UInt32(termNumber)) != 0 {
                if !matchedTerms.contains(term) { matchedTerms.append(term) }
            }
            let match: MatchKind
            switch slot.tier {
            case Tier.exactCase, Tier.exact: match = .exactTrigger
            case Tier.prefix: match = .triggerPrefix
            default: match = MatchKind(rawValue: Int(slot.bestField)) ?? .body
            }
            var score = candidate.score
            switch slot.tier {
            case Tier.exactCase: score += 1100
            case Tier.exact: score += 1000
            case Tier.prefix: score += 500
            default: break
            }
            return SearchHit(
                snippetID: snippets[candidate.number].id, score: score, match: match, matchedTerms: matchedTerms)
        }
        return SearchResults(hits: hits, totalMatches: totalMatches)
    }

    private func isRankedBefore(_ lhs: Candidate, _ rhs: Candidate, _ snippets: [Snippet]) -> Bool {
        if lhs.tier != rhs.tier { return lhs.tier < rhs.tier }
        // Layer precedence: among trigger matches, the first layer's snippet comes first, whatever the scores.
        if lhs.tier < Tier.tokens, lhs.layerRank != rhs.layerRank { return lhs.layerRank < rhs.layerRank }
        // The same trigger twice: the one `LibraryConflicts` says wins (higher priority, then loaded first).
        if lhs.tier <= Tier.exact {
            if lhs.priority != rhs.priority { return lhs.priority > rhs.priority }
            return lhs.number < rhs.number
        }
        if lhs.score != rhs.score { return lhs.score > rhs.score }
        // Between equal matches, the earlier layer (the user's own first) wins here too, not only among triggers:
        // a repository's copy of a user's snippet never outranks it.
        if lhs.layerRank != rhs.layerRank { return lhs.layerRank < rhs.layerRank }
        if lhs.priority != rhs.priority { return lhs.priority > rhs.priority }
        if lhs.shortestTrigger != rhs.shortestTrigger { return lhs.shortestTrigger < rhs.shortestTrigger }
        let lhsTitle = snippets[lhs.number].title
        let rhsTitle = snippets[rhs.number].title
        if lhsTitle != rhsTitle { return lhsTitle < rhsTitle }
        let lhsID = snippets[lhs.number].id
        let rhsID = snippets[rhs.number].id
        if lhsID != rhsID { return lhsID < rhsID }
        return lhs.number < rhs.number
    }

    private static func trimmingWhitespace(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}

/// Collects one occurrence per (token, snippet), with the fields the token occurs in, while snippets are read in
/// order. A struct with mutating methods, so the tokenizer's callback touches no captured variables (which Swift
/// would check for exclusive access at run time on every token).
private struct OccurrenceBuilder {
    var tokens = TokenTable()
    /// `(token << 32) | (snippet << 4) | fields`, in snippet order.
    var occurrences: [UInt64] = []
    private var lastSnippetOfToken: [Int32] = []
    private var lastOccurrenceOfToken: [Int32] = []

    mutating func add(_ text: String, snippet: Int, field: UInt32) {
        Tokenizer.forEachTokenUTF8(in: text) { token, _ in self.add(token, snippet: snippet, field: field) }
    }

    private mutating func add(_ token: UnsafeBufferPointer<UInt8>, snippet: Int, field: UInt32) {
        let id = Int(tokens.intern(token))
        if id == lastSnippetOfToken.count {
            lastSnippetOfToken.append(-1)
            lastOccurrenceOfToken.append(-1)
        }
        if lastSnippetOfToken[id] == Int32(snippet) {
            occurrences[Int(lastOccurrenceOfToken[id])] |= UInt64(field)
        } else {
            lastSnippetOfToken[id] = Int32(snippet)
            lastOccurrenceOfToken[id] = Int32(occurrences.count)
            occurrences.append(UInt64(id) << 32 | UInt64(UInt32(snippet) << TokenIndex.snippetShift | field))
        }
    }
}

/// Match tiers, best first; `tokens` means no trigger matched.
private enum Tier {
    static let exactCase: UInt8 = 0
    static let exact: UInt8 = 1
    static let prefix: UInt8 = 2
    static let tokens: UInt8 = 3
}

private struct Candidate {
    var number: Int
    var tier: UInt8
    var score: Double
    var priority: Int32
    var shortestTrigger: Int32
    var layerRank: Int32
}

/// Per-search scores, one slot per snippet, and the snippets touched so far (so only they are visited).
private struct Accumulator {
    static let maximumTerms = 32

    struct Slot {
        /// Sum of the best contribution of each matched term.
        var score: Float = 0
        /// The contribution counted so far for `lastTerm`.
        var lastContribution: Float = 0
        var termMask: UInt32 = 0
        var tier: UInt8 = Tier.tokens
        /// The strongest field `MatchKind` raw value matched by a term (`body` when none).
        var bestField: UInt8 = UInt8(MatchKind.body.rawValue)
        var lastTerm: UInt8 = .max
        var isTouched = false
    }

    var slots: [Slot]
    var touched: [Int32] = []

    init(snippetCount: Int) {
        slots = [Slot](repeating: Slot(), count: snippetCount)
    }

    mutating func touch(_ number: Int) {
        if !slots[number].isTouched {
            slots[number].isTouched = true
            touched.append(Int32(number))
        }
    }

    mutating func matchTrigger(_ number: Int, tier: UInt8) {
        touch(number)
        slots[number].tier = min(slots[number].tier, tier)
    }

    /// Counts `contribution` for `term` in snippet `number` unless the term already counted as much there.
    mutating func matchTerm(_ number: Int, term: Int, contribution: Float, kind: MatchKind) {
        touch(number)
        let termByte = UInt8(term)
        slots.withUnsafeMutableBufferPointer { buffer in
            if buffer[number].lastTerm == termByte {
                guard contribution > buffer[number].lastContribution else { return }
                buffer[number].score += contribution - buffer[number].lastContribution
            } else {
                buffer[number].score += contribution
                buffer[number].lastTerm = termByte
                buffer[number].termMask |= 1 << UInt32(term)
            }
            buffer[number].lastContribution = contribution
            buffer[number].bestField = min(buffer[number].bestField, UInt8(kind.rawValue))
        }
    }
}

/// A snippet offered inside a word, and the trigger that ends the typed text.
public struct InWordMatch: Hashable, Sendable {
    public var hit: SearchHit
    /// The trigger as written: the characters an edit replaces.
    public var trigger: String
}

/// Hits in rank order, and whether more matched than were returned.
public struct SearchResults: Hashable, Sendable {
    public var hits: [SearchHit]
    /// How many snippets matched before the limit was applied.
    public var totalMatches: Int

    public init(hits: [SearchHit], totalMatches: Int) {
        self.hits = hits
        self.totalMatches = totalMatches
    }

    /// Whether the list was cut at the limit.
    public var isIncomplete: Bool { totalMatches > hits.count }
}

/// One ranked snippet, with why it matched.
public struct SearchHit: Hashable, Sendable {
    public var snippetID: SnippetID
    public var score: Double
    /// The strongest way the snippet matched.
    public var match: MatchKind
    /// The query terms this snippet matched.
    public var matchedTerms: [String]

    public init(snippetID: SnippetID, score: Double, match: MatchKind, matchedTerms: [String]) {
        self.snippetID = snippetID
        self.score = score
        self.match = match
        self.matchedTerms = matchedTerms
    }
}

/// How a snippet matched, strongest first.
public enum MatchKind: Int, Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    case exactTrigger = 0
    case triggerPrefix
    case title
    case description
    case body

    public static func < (lhs: MatchKind, rhs: MatchKind) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .exactTrigger: "exact trigger"
        case .triggerPrefix: "trigger prefix"
        case .title: "title"
        case .description: "description"
        case .body: "body"
        }
    }

    /// The stable name a result gives the match kind (`search --json`, MCP's `search_snippets`).
    public var wireName: String {
        switch self {
        case .exactTrigger: "exactTrigger"
        case .triggerPrefix: "triggerPrefix"
        case .title: "title"
        case .description: "description"
        case .body: "body"
        }
    }
}
