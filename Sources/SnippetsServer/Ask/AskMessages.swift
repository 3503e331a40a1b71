import Foundation
import SnippetsCore

/// `snippets/ask` params (LSP Extension). See `protocol/snippets-ask.md`.
public struct AskParams: Codable, Hashable, Sendable {
    /// 1 to 1,000 characters.
    public var question: String
    /// The document the question was asked from: its language scopes the search.
    public var textDocument: TextDocumentIdentifier?
    /// Where in `textDocument`; only meaningful with it.
    public var position: Position?
    /// How many candidates to retrieve (1 to 50, default 8).
    public var limit: Int?
    /// A progress token from the client: `$/progress` begin, report and end are sent with it.
    public var workDoneToken: JSONValue?

    public init(
        question: String, textDocument: TextDocumentIdentifier? = nil, position: Position? = nil, limit: Int? = nil,
        workDoneToken: JSONValue? = nil
    ) {
        self.question = question
        self.textDocument = textDocument
        self.position = position
        self.limit = limit
        self.workDoneToken = workDoneToken
    }

    /// The core request, with the language of the open document `textDocument` names (if the server has it open).
    /// Invalid params are `-32602` with a message that names the field.
    public func request(language: String?) throws(ResponseError) -> AskRequest {
        if position != nil && textDocument == nil {
            throw .invalidParams("snippets/ask: 'position' needs 'textDocument'")
        }
        let request = AskRequest(question: question, language: language, limit: limit ?? AskRequest.defaultLimit)
        if let problem = request.problem { throw .invalidParams("snippets/ask: \(problem)") }
        return request
    }
}

/// `snippets/ask` result (LSP Extension): the same object for the server and `snippets-lsp ask --json`.
public struct AskResponse: Codable, Hashable, Sendable {
    /// Offsets into `answer`, in code units of the negotiated position encoding.
    public struct AnswerRange: Codable, Hashable, Sendable {
        public var start: Int
        public var end: Int
    }

    /// A snippet the answer names.
    public struct Citation: Codable, Hashable, Sendable {
        public var id: String
        public var title: String
        /// Covers exactly `title` in `answer` (without the quotes around it).
        public var answerRange: AnswerRange
        /// The snippet's entry in its file.
        public var location: LSPLocation
        /// The library layer the snippet came from.
        public var layer: String?
        /// That layer's revision when the answer was made (`LayerRevision.text`: `git:<commit>[+modified]`,
        /// `files:<hash>`).
        public var layerRevision: String?
        /// A hash of the cited entry's content (`Snippet.contentHash`), for `snippets/verifyCitations`.
        public var contentHash: String?
        /// The sentence of the snippet that answers, quoted in `answer` exactly as its file has it.
        public var quote: Quote?
    }

    /// A quoted sentence of a cited snippet.
    public struct Quote: Codable, Hashable, Sendable {
        /// What the snippet shows of its file's text at `location`: a body line as inserted (placeholders by their
        /// text, choices by their first option, tabstops as nothing), a description line as written.
        public var text: String
        /// Its number among the snippet's quotable sentences (description first, then body; 0-based).
        public var sentence: Int
        /// `description` or `body`.
        public var field: String
        /// Covers exactly `text` in `answer`.
        public var answerRange: AnswerRange
        /// Where the sentence's source text (snippet syntax included) is in the snippet's file, for the editor to
        /// highlight.
        public var location: LSPLocation
    }

    /// A snippet the answer looked at.
    public struct Candidate: Codable, Hashable, Sendable {
        public var id: String
        public var title: String
        public var location: LSPLocation
        /// The library layer the snippet came from.
        public var layer: String?
    }

    /// Why the status is not `answered`.
    public struct Reason: Codable, Hashable, Sendable {
        /// A stable code: see `AskReasonCode`.
        public var code: String
        public var message: String
        /// For `audit-failed`: the audit rules the replaced answer broke.
        public var failedRules: [String]?
    }

    /// How the model's role was reached, and the measured figures (see `QualificationCounts`).
    public struct Qualification: Codable, Hashable, Sendable {
        public struct Tally: Codable, Hashable, Sendable {
            public var probes: Int
            public var agreed: Int
        }

        /// The latest checks of a model whose trust they ended (basis `demoted`): how many there were, and how
        /// many the model declined, answered with another snippet, or answered in a way the audit rejected.
        public struct Checks: Codable, Hashable, Sendable {
            public var checked: Int
            public var declined: Int
            public var citedOther: Int
            public var failedAudit: Int
        }

        /// `measured`, `measuring`, `unmeasured`, `forced`, `demoted` or `checking`.
        public var basis: String
        public var answerable: Tally?
        public var unanswerable: Tally?
        public var injected: Tally?
        public var faults: Int?
        public var calls: Int?
        public var seconds: Double?
        /// With basis `demoted`: the checks that ended the model's trust.
        public var checks: Checks?

        /// The wire form of `standing`.
        public init(_ standing: ModelStanding) {
            basis = standing.basis.rawValue
            checks = standing.checks.map {
                Checks(checked: $0.latest.count, declined: $0.count(of: .declined), citedOther: $0.count(of: .citedOther), failedAudit: $0.count(of: .failedAudit))
            }
            guard let counts = standing.qualification else { return }
            answerable = Tally(probes: counts.answerable.probes, agreed: counts.answerable.agreed)
            unanswerable = Tally(probes: counts.unanswerable.probes, agreed: counts.unanswerable.agreed)
            injected = Tally(probes: counts.injected.probes, agreed: counts.injected.agreed)
            faults = counts.faults
            calls = counts.calls
            seconds = (counts.seconds * 10).rounded() / 10
        }
    }

    /// How far meaning search had got: `off` (no encoder; `note` says how to turn it on), `embedding` (only
    /// `embedded` of `total` snippets could be matched by meaning) or `ready`.
    public struct Meaning: Codable, Hashable, Sendable {
        public var state: String
        public var embedded: Int
        public var total: Int
        public var note: String?
        /// Whether a cited snippet was found by meaning rather than by the question's words.
        public var foundByMeaning: Bool
        /// When nothing is named as the answer: the ids of the candidates the answer names as nearest in meaning
        /// (not confirmed, not citations); absent when it names none.
        public var suggested: [String]?
    }

    public var status: String
    public var answer: String
    public var searchTerms: [String]
    public var citations: [Citation]
    public var candidates: [Candidate]
    public var reason: Reason?
    /// With a model configured: `trusted`, `advisory` or `ignored` (see `ModelRole`).
    public var modelRole: String?
    /// With a model configured: how its role was reached and the figures it came from.
    public var qualification: Qualification?
    /// How far meaning search had got when the question was answered.
    public var meaning: Meaning?

    /// The wire form of `result`, with every offset and column in `encoding`; with `library` (the one asked),
    /// each citation and candidate says its layer, and each citation the layer's revision and its content hash.
    public init(_ result: AskResult, encoding: PositionEncoding, library: SnippetLibrary? = nil) {
        status = result.status.rawValue
        answer = result.answer
        searchTerms = result.searchTerms
        citations = result.citations.map { citation in
            let range = citation.answerRange(in: result.answer, encoding: encoding)
            let snippet = library?.snippet(withID: citation.snippetID)
            return Citation(
                id: citation.snippetID.rawValue, title: citation.title,
                answerRange: AnswerRange(start: range.lowerBound, end: range.upperBound),
                location: LSPLocation(sourceLocation: citation.location, in: encoding),
                layer: snippet?.layer.nonEmptyLayer,
                layerRevision: snippet.flatMap { library?.layerRevisions[$0.layer]?.text },
                contentHash: snippet?.contentHash,
                quote: citation.quote.map { quote in
                    let range = AskCitation.range(quote.answerUTF8Range, in: result.answer, encoding: encoding)
                    return Quote(
                        text: quote.text, sentence: quote.sentence, field: quote.field.rawValue,
                        answerRange: AnswerRange(start: range.lowerBound, end: range.upperBound),
                        location: LSPLocation(sourceLocation: quote.location, in: encoding))
                })
        }
        candidates = result.candidates.map {
            Candidate(
                id: $0.snippetID.rawValue, title: $0.title, location: LSPLocation(sourceLocation: $0.location, in: encoding),
                layer: library?.snippet(withID: $0.snippetID)?.layer.nonEmptyLayer)
        }
        modelRole = result.model?.role.rawValue
        qualification = result.model.map(Qualification.init)
        meaning = result.meaning.map {
            Meaning(
                state: $0.state.rawValue, embedded: $0.embedded, total: $0.total, note: $0.note, foundByMeaning: result.foundByMeaning,
                suggested: result.suggested.isEmpty ? nil : result.suggested.map(\.rawValue))
        }
        reason = result.reason.map {
            Reason(code: $0.code.rawValue, message: $0.message, failedRules: $0.failedRules.isEmpty ? nil : $0.failedRules.map(\.rawValue))
        }
    }

    /// Compact JSON with sorted keys: the encoding the server's replies use, so the command line prints the same.
    public func jsonText(pretty: Bool = false) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings, numbers and arrays cannot fail.
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "{}"
    }
}

extension String {
    /// The layer name, nil when empty (snippets built by hand have none).
    fileprivate var nonEmptyLayer: String? { isEmpty ? nil : self }
}

