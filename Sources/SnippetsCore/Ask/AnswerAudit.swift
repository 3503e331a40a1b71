/// An answer before it is allowed out: its text and what it claims to cite, exactly as proposed.
public struct DraftAnswer: Hashable, Sendable {
    /// A claimed citation: the identifier as proposed (possibly not a real one) and the title the text names.
    public struct Citation: Hashable, Sendable {
        public var citedID: String
        public var title: String
        /// UTF-8 offsets into `text` that should cover exactly `title`.
        public var utf8Range: Range<Int>
        /// The sentence of the snippet the answer quotes, if any.
        public var quote: Quote?

        public init(citedID: String, title: String, utf8Range: Range<Int>, quote: Quote? = nil) {
            self.citedID = citedID
            self.title = title
            self.utf8Range = utf8Range
            self.quote = quote
        }
    }

    /// A quoted sentence: which of the snippet's quotable sentences (`QuotableSentence.index`), its text as
    /// claimed, and the UTF-8 offsets into `text` that should cover exactly it.
    public struct Quote: Hashable, Sendable {
        public var sentence: Int
        public var text: String
        public var utf8Range: Range<Int>

        public init(sentence: Int, text: String, utf8Range: Range<Int>) {
            self.sentence = sentence
            self.text = text
            self.utf8Range = utf8Range
        }
    }

    public var text: String
    public var citations: [Citation]
    /// Whether the answer claims to answer (true) or says nothing fits (false).
    public var claimsAnswer: Bool

    public init(text: String, citations: [Citation], claimsAnswer: Bool) {
        self.text = text
        self.citations = citations
        self.claimsAnswer = claimsAnswer
    }
}

/// A named, deterministic check every answer passes before it is returned.
public enum AuditRule: String, Hashable, Sendable, Codable, CaseIterable {
    /// Every cited identifier was among this question's candidates.
    case citedIDsRetrieved = "cited-ids-retrieved"
    /// Every title named or quoted in the answer belongs to a candidate, and each citation names its own snippet.
    case titlesAreCandidates = "titles-are-candidates"
    /// Every citation range covers exactly its title in the answer text.
    case citationRangesExact = "citation-ranges-exact"
    /// Every number in the answer appears verbatim in a cited snippet's trusted text or in the question.
    case numbersInEvidence = "numbers-in-evidence"
    /// Nothing from a sentence that reads as an instruction to an assistant is echoed.
    case noEchoedInstructions = "no-echoed-instructions"
    /// One or two short sentences; an answer cites something, a "nothing fits" cites nothing.
    case answerShape = "answer-shape"
    /// Every quote is one of its cited snippet's quotable sentences, exactly what the snippet shows of its file's text
    /// at the sentence's range (`QuotableSentence.shownText`), and its range in the answer covers exactly it.
    case quotesExact = "quotes-exact"
}

/// A rule an answer broke, and how.
public struct AuditFailure: Hashable, Sendable {
    public var rule: AuditRule
    /// What exactly was wrong, for logs and tests.
    public var detail: String

    public init(rule: AuditRule, detail: String) {
        self.rule = rule
        self.detail = detail
    }
}

/// The deterministic audit: runs every `AuditRule` over a draft, against the question, the candidates it was
/// allowed to cite, and the library (to recognise titles of snippets that were not candidates).
public struct AnswerAudit: Sendable {
    /// The most characters an answer may have outside the titles it names.
    public static let maximumProseLength = 320

    let question: String
    let candidates: [SnippetEvidence]
    /// The library's titles by their words, to recognise a title named in prose (computed once per library).
    let facts: AskLibraryFacts.Facts

    /// An audit for answers to `question` that may cite only `candidates` (snippets of `library`).
    public init(question: String, candidates: [Snippet], library: SnippetLibrary) {
        self.init(question: question, evidence: candidates.map(SnippetEvidence.init), facts: AskLibraryFacts.Facts(library: library))
    }

    /// Each candidate's quotable sentences with the file they were read from, by identifier: a quote is checked
    /// against them (a snippet without an entry has nothing to quote).
    var quotable: [String: (sentences: [QuotableSentence], file: QuoteFile)] = [:]

    init(question: String, evidence: [SnippetEvidence], facts: AskLibraryFacts.Facts) {
        self.question = question
        self.candidates = evidence
        self.facts = facts
    }

    /// Every rule `draft` breaks; empty when it may be returned.
    public func failures(of draft: DraftAnswer) -> [AuditFailure] {
        var failures: [AuditFailure] = []
        let candidateByID = Dictionary(candidates.map { ($0.snippet.id.rawValue, $0) }, uniquingKeysWith: { a, _ in a })
        let table = LineTable(draft.text)

        // cited-ids-retrieved
        for citation in draft.citations where candidateByID[citation.citedID] == nil {
            failures.append(.init(rule: .citedIDsRetrieved, detail: "'\(citation.citedID)' was not a candidate"))
        }

        // citation-ranges-exact
        let textLength = draft.text.utf8.count
        for citation in draft.citations {
            let range = citation.utf8Range
            guard range.lowerBound >= 0, range.upperBound <= textLength,
                String(table.slice(range)) == citation.title, !citation.title.isEmpty
            else {
                failures.append(.init(rule: .citationRangesExact, detail: "range \(range) does not cover '\(citation.title)'"))
                continue
            }
        }

        // quotes-exact
        for citation in draft.citations {
            guard let quote = citation.quote else { continue }
            let range = quote.utf8Range
            guard range.lowerBound >= 0, range.upperBound <= textLength, String(table.slice(range)) == quote.text else {
                failures.append(.init(rule: .quotesExact, detail: "range \(range) does not cover the quote of \(citation.citedID)"))
                continue
            }
            guard let source = quotable[citation.citedID], source.sentences.indices.contains(quote.sentence) else {
                failures.append(.init(rule: .quotesExact, detail: "sentence \(quote.sentence) is not one of \(citation.citedID)'s"))
                continue
            }
            let sentence = source.sentences[quote.sentence]
            // What the file holds at the sentence's range now, as the snippet shows it.
            let held = source.file.text(at: sentence.fileUTF8Range)
            let shown = held.flatMap { held in
                candidateByID[citation.citedID].flatMap {
                    QuotableSentence.shownText(ofSource: held, field: sentence.field, format: $0.snippet.format)
                }
            }
            if sentence.text != quote.text || shown != quote.text {
                failures.append(.init(rule: .quotesExact, detail: "the quote is not what \(citation.citedID)'s file shows at its range"))
            } else if AskText.isInstruction(quote.text) || held.map(AskText.isInstruction) == true {
                failures.append(.init(rule: .quotesExact, detail: "the quote reads as an instruction"))
            }
        }

        // titles-are-candidates: citations name their own snippet; quoted or named titles elsewhere are candidates.
        let candidateTitles = Set(candidates.map(\.snippet.title))
        for citation in draft.citations {
            if let evidence = candidateByID[citation.citedID], evidence.snippet.title != citation.title {
                failures.append(.init(rule: .titlesAreCandidates, detail: "'\(citation.title)' is not the title of \(citation.citedID)"))
            }
        }
        // Titles and quotes are checked above; the rest is prose.
        let prose = Self.masking(draft.citations.map(\.utf8Range) + draft.citations.compactMap(\.quote?.utf8Range), in: draft.text)
        for quoted in Self.quotedSpans(in: prose) where !candidateTitles.contains(quoted) {
            failures.append(.init(rule: .titlesAreCandidates, detail: "quoted \"\(quoted)\" is no candidate's title"))
        }
        let proseWordList = AskText.words(in: prose)
        for title in facts.titles(namedIn: proseWordList) where !candidateTitles.contains(title) {
            failures.append(.init(rule: .titlesAreCandidates, detail: "names \"\(title)\", which was not a candidate"))
        }

        // numbers-in-evidence
        let citedEvidence = draft.citations.compactMap { candidateByID[$0.citedID]?.trustedText }
        let unquoted = Self.masking(draft.citations.compactMap(\.quote?.utf8Range), in: draft.text)
        for number in Set(AskText.numbers(in: unquoted)).sorted() {
            let found = AskText.contains(number: number, in: question)
                || citedEvidence.contains { AskText.contains(number: number, in: $0) }
            if !found {
                failures.append(.init(rule: .numbersInEvidence, detail: "\(number) is in no cited snippet"))
            }
        }

        // no-echoed-instructions: any three consecutive words, or any quoted text, of an instruction sentence.
        let proseTrigrams = Set(Self.trigrams(proseWordList))
        let lowercasedProse = prose.lowercased()
        for evidence in candidates {
            for sentence in evidence.instructionSentences {
                let echoed = Self.trigrams(AskText.words(in: sentence)).first { proseTrigrams.contains($0) }
                let quotedEcho = Self.quotedSpans(in: sentence).first {
                    $0.count >= 3 && lowercasedProse.contains($0.lowercased())
                }
                if let echo = echoed ?? quotedEcho {
                    failures.append(.init(rule: .noEchoedInstructions, detail: "echoes \"\(echo)\" from \(evidence.snippet.title)"))
                }
            }
        }

        // answer-shape
        if prose.allSatisfy(\.isWhitespace) && draft.citations.isEmpty {
            failures.append(.init(rule: .answerShape, detail: "the answer is empty"))
        }
        if draft.claimsAnswer && draft.citations.isEmpty {
            failures.append(.init(rule: .answerShape, detail: "claims an answer but cites nothing"))
        }
        if !draft.claimsAnswer && !draft.citations.isEmpty {
            failures.append(.init(rule: .answerShape, detail: "says nothing fits but cites snippets"))
        }
        let sentenceCount = AskText.sentences(in: String(prose.map { $0 == ":" ? "," : $0 })).count
        if sentenceCount > 2 {
            failures.append(.init(rule: .answerShape, detail: "\(sentenceCount) sentences; at most 2"))
        }
        if prose.count > Self.maximumProseLength {
            failures.append(.init(rule: .answerShape, detail: "\(prose.count) characters; at most \(Self.maximumProseLength)"))
        }
        if Set(draft.citations.map(\.citedID)).count != draft.citations.count {
            failures.append(.init(rule: .answerShape, detail: "cites the same snippet twice"))
        }
        return failures
    }

    /// `text` with each UTF-8 range replaced by a neutral placeholder word (`▯`), so titles that were already checked
    /// are not read again as prose.
    static func masking(_ ranges: [Range<Int>], in text: String) -> String {
        let textLength = text.utf8.count
        let table = LineTable(text)
        var result = ""
        var offset = 0
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound })
        where range.lowerBound >= offset && range.upperBound <= textLength {
            result += table.slice(offset..<range.lowerBound)
            result += "▯"
            offset = range.upperBound
        }
        result += table.slice(offset..<textLength)
        return result
    }

    /// Text between matching quotes: "straight", “curly”, «guillemets», 'single' only around two or more words.
    static func quotedSpans(in text: String) -> [String] {
        let pairs: [(Character, Character)] = [("\"", "\""), ("“", "”"), ("«", "»"), ("„", "“"), ("‘", "’")]
        var spans: [String] = []
        for (open, close) in pairs {
            var current: String?
            for character in text {
                if var span = current {
                    if character == close {
                        spans.append(span)
                        current = nil
                    } else {
                        span.append(character)
                        current = span
                    }
                } else if character == open {
                    current = ""
                }
            }
        }
        return spans.filter { !$0.contains("▯") && !$0.allSatisfy(\.isWhitespace) }
    }

    static func trigrams(_ words: [String]) -> [String] {
        guard words.count >= 3 else { return [] }
        return (0...(words.count - 3)).map { words[$0..<$0 + 3].joined(separator: " ") }
    }
}
