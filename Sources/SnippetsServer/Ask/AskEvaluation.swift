import Foundation
import SnippetsCore

/// A probe battery: questions over one library, each with the titles a correct answer cites and text it must not
/// contain. The format of `shared/eval/personal-battery.json`.
public struct ProbeBattery: Codable, Sendable {
    /// One question.
    public struct Probe: Codable, Sendable {
        public var id: String
        /// `literal`, `bridge`, `multi`, `unanswerable`, `false_premise`, `injection`, `number`.
        public var kind: String
        public var question: String
        /// Titles a correct answer cites; empty when a correct answer cites nothing.
        public var expect: [String]
        /// Text that must never appear in an answer.
        public var forbid: [String]?
    }

    /// The library's path, relative to the battery file.
    public var library: String
    public var probes: [Probe]
}

/// What one probe's answer did, judged from the result and the library alone, not from the pipeline's own audit.
public struct ProbeOutcome: Codable, Sendable {
    public var id: String
    public var kind: String
    public var status: String
    public var cited: [String]
    /// Every citation was a candidate, names its snippet's real title, and its range covers exactly that title.
    public var grounded: Bool
    /// Quoted or title-like spans of the answer that are no snippet's title.
    public var inventedTitles: [String]
    /// Numbers in the answer found neither in a cited snippet nor in the question.
    public var unsupportedNumbers: [String]
    /// Forbidden strings the answer contains.
    public var leaks: [String]
    public var expected: Int
    public var expectedRetrieved: Int
    public var expectedCited: Int
    /// The model's answer failed the audit and was replaced.
    public var replaced: Bool
    /// The answer is a `fallback`: a model fault, a failed audit or a disagreement put the deterministic answer in.
    public var fellBack = false
    /// A model was configured and had candidates to pick from.
    public var askedModel = false
    /// The answer's reason code (`nothing-fits`, `premise-not-found`, …), nil when it has none: why a probe declined.
    public var reason: String?
    /// The titles a declining answer named as nearest in meaning (not cited).
    public var suggested: [String] = []
    /// Where meaning alone ranks the first expected snippet among the whole library's (1 is nearest; 0 when it is not
    /// within `AskEvaluation.meaningDepth`); nil when nothing is expected or meaning is not ready. What an
    /// answer by meaning alone could at best be: the encoder's ceiling on this battery, beside what ask answered.
    public var meaningRank: Int?
}

/// Measures over a set of probe outcomes.
public struct EvalMeasures: Codable, Sendable {
    public var probes = 0
    public var grounded = 0
    public var inventedTitles = 0
    public var unsupportedNumbers = 0
    public var leaks = 0
    public var expected = 0
    public var expectedRetrieved = 0
    public var expectedCited = 0
    public var cited = 0
    public var citedCorrect = 0
    /// Probes whose `expect` is empty, and how many of them cite nothing and say so.
    public var abstentionProbes = 0
    public var abstained = 0
    /// Probes whose `expect` is not empty, and how many of them cite at least one snippet.
    public var answerableProbes = 0
    public var substantive = 0
    /// Answers a model was consulted for, how many of them failed the audit and were replaced, and how many fell
    /// back to the deterministic answer for any reason.
    public var modelAnswers = 0
    public var replaced = 0
    public var fallbacks = 0
    /// Answerable probes asked while every snippet had a vector, and how many of them have an expected snippet first,
    /// or in the first three, by meaning alone (`ProbeOutcome.meaningRank`).
    public var meaningProbes = 0
    public var meaningFirst = 0
    public var meaningTopThree = 0

    /// Adds one outcome.
    mutating func add(_ outcome: ProbeOutcome, expect: [String]) {
        probes += 1
        if outcome.askedModel { modelAnswers += 1 }
        if outcome.grounded { grounded += 1 }
        inventedTitles += outcome.inventedTitles.count
        unsupportedNumbers += outcome.unsupportedNumbers.count
        leaks += outcome.leaks.count
        expected += outcome.expected
        expectedRetrieved += outcome.expectedRetrieved
        expectedCited += outcome.expectedCited
        cited += outcome.cited.count
        citedCorrect += outcome.cited.filter(expect.contains).count
        if expect.isEmpty {
            abstentionProbes += 1
            // Cites nothing and says so: `noMatch`, or a `fallback` whose deterministic answer names nothing.
            let saysSo = outcome.status == AskStatus.noMatch.rawValue || outcome.status == AskStatus.fallback.rawValue
            if outcome.cited.isEmpty && saysSo { abstained += 1 }
        } else {
            answerableProbes += 1
            if !outcome.cited.isEmpty { substantive += 1 }
        }
        if outcome.replaced { replaced += 1 }
        if outcome.askedModel && outcome.fellBack { fallbacks += 1 }
        if !expect.isEmpty, let rank = outcome.meaningRank {
            meaningProbes += 1
            if rank == 1 { meaningFirst += 1 }
            if (1...3).contains(rank) { meaningTopThree += 1 }
        }
    }

    /// Whether every hard invariant holds: all grounded, no invented title, no unsupported number, no leak.
    public var invariantsHold: Bool { grounded == probes && inventedTitles == 0 && unsupportedNumbers == 0 && leaks == 0 }
}

/// Runs a battery through the ask pipeline and judges each answer independently of the pipeline's audit.
public struct AskEvaluation: Sendable {
    public var outcomes: [ProbeOutcome]
    /// Measures per kind, in the order kinds first appear, then `overall`.
    public var measures: [(kind: String, measures: EvalMeasures)]

    /// The measures over every probe.
    public var overall: EvalMeasures { measures.last!.measures }

    /// Runs `battery` over `library`, retrieving `limit` candidates per question.
    public static func run(
        _ battery: ProbeBattery, library: SnippetLibrary, model: (any AskModel)? = nil,
        modelStanding: ModelStanding = .unmeasured, limit: Int = AskRequest.defaultLimit,
        sources: (any SnippetSources)? = FileSystemSnippetSources(fileSystem: DiskFileSystem()),
        meaningEnvironment: [String: String]? = nil
    ) async throws -> AskEvaluation {
        let index = TokenIndex(library: library)
        let facts = AskLibraryFacts(library: library)
        // Meaning search as `serve` would have it for `meaningEnvironment` (the command's); none for callers that
        // pass none (tests of the word pipeline).
        if let meaningEnvironment {
            MeaningSetup.prepare(facts, library: library, environment: meaningEnvironment)
        } else {
            facts.meaning.turnOff(because: "Meaning search is off for this evaluation.")
        }
        let pipeline = AskPipeline(library: library, index: index, facts: facts, model: model, modelStanding: modelStanding, sources: sources)
        var outcomes: [ProbeOutcome] = []
        var byKind: [String: EvalMeasures] = [:]
        var kinds: [String] = []
        var overall = EvalMeasures()
        for probe in battery.probes {
            // A battery is hundreds of asks that need not suspend: let other work on the same threads run between
            // them (a server's replies, other tests' timers).
            await Task.yield()
            let result = try await pipeline.answer(AskRequest(question: probe.question, limit: limit))
            var outcome = judge(probe, result: result, library: library, sources: sources)
            if !probe.expect.isEmpty { outcome.meaningRank = meaningRank(of: probe, meaning: facts.meaning, library: library) }
            outcome.askedModel = model != nil && !result.candidates.isEmpty
            outcomes.append(outcome)
            if byKind[probe.kind] == nil { kinds.append(probe.kind) }
            byKind[probe.kind, default: EvalMeasures()].add(outcome, expect: probe.expect)
            overall.add(outcome, expect: probe.expect)
        }
        return AskEvaluation(outcomes: outcomes, measures: kinds.map { ($0, byKind[$0]!) } + [("overall", overall)])
    }

    /// How deep `ProbeOutcome.meaningRank` looks.
    static let meaningDepth = 3

    /// Where meaning alone ranks `probe`'s first expected snippet among every snippet of `library`: 1 is nearest,
    /// 0 when it is not within `meaningDepth`; nil when meaning is not ready (no encoder, or not every snippet
    /// embedded: a rank among some snippets says nothing about the rest).
    static func meaningRank(of probe: ProbeBattery.Probe, meaning: SnapshotMeaning, library: SnippetLibrary) -> Int? {
        guard meaning.status.state == .ready, let embedder = meaning.questionEmbedder,
            let vector = embedder.embed([probe.question]).first
        else { return nil }
        let nearest = meaning.nearest(to: vector, limit: meaningDepth) { _ in true }
        let position = nearest.firstIndex { library.snippet(withID: $0.id).map { probe.expect.contains($0.title) } ?? false }
        return position.map { $0 + 1 } ?? 0
    }

    /// Judges one answer from the wire result (UTF-16 ranges, as a client sees them) and the library.
    /// A quote is grounded when its range covers exactly its text in the answer and its text is exactly what the
    /// snippet shows of its file's text at its location (read again through `sources`, see
    /// `QuotableSentence.shownText`); quotes are then left out of the prose that is judged for titles and numbers.
    static func judge(
        _ probe: ProbeBattery.Probe, result: AskResult, library: SnippetLibrary, sources: (any SnippetSources)? = nil
    ) -> ProbeOutcome {
        let wire = AskResponse(result, encoding: .utf16)
        let utf16 = Array(wire.answer.utf16)
        var quoteRanges: [Range<Int>] = []
        var quotesGrounded = true
        for citation in wire.citations {
            guard let quote = citation.quote else { continue }
            let range = quote.answerRange
            guard range.start >= 0, range.start <= range.end, range.end <= utf16.count,
                String(decoding: utf16[range.start..<range.end], as: UTF16.self) == quote.text
            else {
                quotesGrounded = false
                continue
            }
            quoteRanges.append(range.start..<range.end)
            if let sources {
                let file = sources.bytes(ofFileAt: quote.location.uri).map { LineTable(String(decoding: $0, as: UTF8.self)) }
                let start = file.map { $0.utf8Offset(of: quote.location.range.start, in: .utf16) }
                let end = file.map { $0.utf8Offset(of: quote.location.range.end, in: .utf16) }
                let snippet = library.snippet(withID: SnippetID(rawValue: citation.id))
                if let file, let start, let end, start <= end, let snippet, let field = QuoteField(rawValue: quote.field) {
                    let shown = QuotableSentence.shownText(ofSource: String(file.slice(start..<end)), field: field, format: snippet.format)
                    if shown != quote.text { quotesGrounded = false }
                } else {
                    quotesGrounded = false
                }
            }
        }
        // The prose: the answer with each quote replaced by a neutral mark.
        var prose16 = utf16
        for range in quoteRanges.sorted(by: { $0.lowerBound > $1.lowerBound }) {
            prose16.replaceSubrange(range, with: Array("▯".utf16))
        }
        let answer = String(decoding: prose16, as: UTF16.self)
        let candidateIDs = Set(wire.candidates.map(\.id))
        let titles = Set(library.snippets.map(\.title))

        var grounded = quotesGrounded
        var citedSnippets: [Snippet] = []
        for citation in wire.citations {
            let snippet = library.snippet(withID: SnippetID(rawValue: citation.id))
            let range = citation.answerRange
            let covered =
                range.start >= 0 && range.start <= range.end && range.end <= utf16.count
                ? String(decoding: utf16[range.start..<range.end], as: UTF16.self) : nil
            if !candidateIDs.contains(citation.id) || snippet == nil || snippet?.title != citation.title || covered != citation.title {
                grounded = false
            }
            if let snippet { citedSnippets.append(snippet) }
        }

        // The titles the answer names as near in meaning (not cited).
        let suggestedTitles = (wire.meaning?.suggested ?? []).compactMap { library.snippet(withID: SnippetID(rawValue: $0))?.title }
        let evidence = citedSnippets.flatMap { snippet in
            [snippet.title, snippet.description ?? "", snippet.body, SnippetBody.parse(snippet.body).body.plainText()] + snippet.triggers
        } + [probe.question]
            // A title the answer names as near in meaning (not cited) may hold a number of its own.
            + suggestedTitles
        // A quoted span must be a title; a capitalised run must be part of a title or of what is cited.
        var invented = quotedSpans(in: answer).filter { !titles.contains($0) && $0 != "▯" }
        invented += capitalisedRuns(in: answer).filter { run in
            !invented.contains(run) && !titles.contains { $0.contains(run) } && !evidence.contains { $0.contains(run) }
        }
        let unsupported = numbers(in: answer).filter { number in !evidence.contains { contains(number, in: $0) } }
        // Forbidden text is looked for in everything the person reads, quotes included.
        let leaks = (probe.forbid ?? []).filter { wire.answer.localizedCaseInsensitiveContains($0) }

        let cited = wire.citations.map(\.title)
        let candidateTitles = Set(wire.candidates.map(\.title))
        return ProbeOutcome(
            id: probe.id, kind: probe.kind, status: wire.status, cited: cited, grounded: grounded,
            inventedTitles: invented, unsupportedNumbers: unsupported, leaks: leaks, expected: probe.expect.count,
            expectedRetrieved: probe.expect.filter(candidateTitles.contains).count,
            expectedCited: probe.expect.filter(cited.contains).count,
            replaced: wire.reason?.code == AskReasonCode.auditFailed.rawValue, fellBack: wire.status == AskStatus.fallback.rawValue,
            reason: wire.reason?.code,
            suggested: suggestedTitles)
    }

    /// Text in straight or curly double quotes.
    static func quotedSpans(in text: String) -> [String] {
        matches(of: [#""([^"]+)""#, #"“([^”]+)”"#], in: text)
    }

    /// Runs of two or more Capitalised words: how a title reads when it is named without quotes.
    static func capitalisedRuns(in text: String) -> [String] {
        matches(of: [#"\b(\p{Lu}[\p{L}\d]*(?:[ \-]\p{Lu}[\p{L}\d]*)+)\b"#], in: text)
    }

    private static func matches(of patterns: [String], in text: String) -> [String] {
        var spans: [String] = []
        let whole = NSRange(text.startIndex..., in: text)
        for pattern in patterns {
            let expression = try! NSRegularExpression(pattern: pattern)
            for match in expression.matches(in: text, range: whole) {
                if let range = Range(match.range(at: 1), in: text), !spans.contains(String(text[range])) {
                    spans.append(String(text[range]))
                }
            }
        }
        return spans
    }

    /// Digit runs, with `.`, `,` or `:` between digits kept.
    static func numbers(in text: String) -> [String] {
        let expression = try! NSRegularExpression(pattern: #"\d+(?:[.,:]\d+)*"#)
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range, in: text).map { String(text[$0]) }
        }
    }

    /// Whether `number` appears in `text` with no digit right before or after it.
    static func contains(_ number: String, in text: String) -> Bool {
        let pattern = #"(?<!\d)"# + NSRegularExpression.escapedPattern(for: number) + #"(?!\d)"#
        return (try? NSRegularExpression(pattern: pattern))?.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// A share as a percentage, or `n/a` when there is nothing to divide.
    static func percent(_ part: Int, _ whole: Int) -> String {
        whole == 0 ? "n/a" : String(format: "%.0f%%", 100 * Double(part) / Double(whole))
    }

    /// The report: one line per probe, then a table of measures per kind and overall.
    public func text() -> String {
        var lines: [String] = []
        for outcome in outcomes {
            let cited = outcome.cited.isEmpty ? "-" : outcome.cited.map { "\"\($0)\"" }.joined(separator: ", ")
            var flags: [String] = []
            if !outcome.grounded { flags.append("UNGROUNDED") }
            if !outcome.inventedTitles.isEmpty { flags.append("INVENTED \(outcome.inventedTitles)") }
            if !outcome.unsupportedNumbers.isEmpty { flags.append("NUMBERS \(outcome.unsupportedNumbers)") }
            if !outcome.leaks.isEmpty { flags.append("LEAK \(outcome.leaks)") }
            lines.append("\(outcome.id) \(outcome.kind.padding(toLength: 13, withPad: " ", startingAt: 0)) \(outcome.status.padding(toLength: 10, withPad: " ", startingAt: 0)) \(outcome.expectedCited)/\(outcome.expected) cited: \(cited) \(flags.joined(separator: " "))")
        }
        lines.append("")
        let header = ["kind", "n", "grounding", "invented", "numbers", "leaks", "retr.recall", "ans.recall", "cit.prec", "abstention", "substantive", "replaced", "fallback", "meaning@1", "meaning@3"]
        var rows = [header]
        for (kind, m) in measures {
            rows.append([
                kind, String(m.probes), Self.percent(m.grounded, m.probes), String(m.inventedTitles), String(m.unsupportedNumbers),
                String(m.leaks), Self.percent(m.expectedRetrieved, m.expected), Self.percent(m.expectedCited, m.expected),
                Self.percent(m.citedCorrect, m.cited), Self.percent(m.abstained, m.abstentionProbes),
                Self.percent(m.substantive, m.answerableProbes), Self.percent(m.replaced, m.modelAnswers),
                Self.percent(m.fallbacks, m.modelAnswers), Self.percent(m.meaningFirst, m.meaningProbes),
                Self.percent(m.meaningTopThree, m.meaningProbes),
            ])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max()! }
        for row in rows {
            lines.append(row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  "))
        }
        lines.append("")
        lines.append(
            "meaning@1, meaning@3: answerable probes whose expected snippet meaning alone ranks first, or in the first three, "
                + "of the whole library (the encoder's ceiling, n/a without it).")
        lines.append(overall.invariantsHold
            ? "Hard invariants hold: grounding 100%, no invented title, no unsupported number, no forbidden text."
            : "HARD INVARIANT FAILED: see the flagged probes above.")
        return lines.joined(separator: "\n")
    }

    /// The report as JSON: `probes` (one outcome each), `measures` (per kind and `overall`), `invariantsHold`.
    public func json() -> String {
        struct Report: Encodable {
            var probes: [ProbeOutcome]
            var measures: [String: EvalMeasures]
            var kinds: [String]
            var invariantsHold: Bool
        }
        let report = Report(
            probes: outcomes, measures: Dictionary(measures.map { ($0.kind, $0.measures) }, uniquingKeysWith: { a, _ in a }),
            kinds: measures.map(\.kind), invariantsHold: overall.invariantsHold)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(report), as: UTF8.self)) ?? "{}"
    }
}
