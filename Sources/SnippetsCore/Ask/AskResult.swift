/// A question to answer from the library.
public struct AskRequest: Hashable, Sendable {
    /// How long a question may be, in characters (Unicode scalars).
    public static let questionLength = 1...1000
    /// How many candidates retrieval returns when the caller does not say.
    public static let defaultLimit = 8
    /// The most candidates a caller may ask for.
    public static let maximumLimit = 50

    public var question: String
    /// The language of the document the question was asked from; nil searches every snippet.
    public var language: String?
    /// How many candidates retrieval returns.
    public var limit: Int

    public init(question: String, language: String? = nil, limit: Int = AskRequest.defaultLimit) {
        self.question = question
        self.language = language
        self.limit = limit
    }

    /// What is wrong with this request, or nil when it can be asked.
    public var problem: String? {
        // Counted in Unicode scalars, as JSON Schema's maxLength counts.
        let length = question.unicodeScalars.count
        if question.allSatisfy(\.isWhitespace) { return "question must not be empty" }
        if length > Self.questionLength.upperBound {
            return "question is \(length) characters long; the most is \(Self.questionLength.upperBound)"
        }
        if limit < 1 || limit > Self.maximumLimit { return "limit must be between 1 and \(Self.maximumLimit)" }
        return nil
    }
}

/// What happened to a question, in words a person can act on.
public enum AskStatus: String, Hashable, Sendable, Codable, CaseIterable {
    /// Candidates were picked and the answer passed the audit.
    case answered
    /// The model failed or its answer failed the audit; the answer was put together deterministically.
    case fallback
    /// The library was searched and nothing fits (the searched words are in `searchTerms`).
    case noMatch
    /// The library paths were read and hold no snippets.
    case emptyLibrary
    /// The library paths are missing or every file in them failed to load.
    case libraryUnreadable
}

/// A stable, machine-readable name for why a result is not plainly `answered`.
public enum AskReasonCode: String, Hashable, Sendable, Codable, CaseIterable {
    /// noMatch: retrieval returned no snippet for the searched words.
    case nothingRetrieved = "nothing-retrieved"
    /// noMatch: snippets shared words with the question, but none covered it well enough to cite.
    case nothingFits = "nothing-fits"
    /// noMatch: the question names something specific (a figure, a name, its rarest word) that no candidate has,
    /// while the candidates share only its common words; the message names what was not found.
    case premiseNotFound = "premise-not-found"
    /// noMatch: the model looked at the candidates and said none answers the question.
    case modelFoundNone = "model-found-none"
    /// noMatch: a trusted model said none of the candidates answers, overruling the deterministic pick.
    case modelVetoed = "model-vetoed"
    /// noMatch: the question holds only common words, so nothing was searched.
    case noSearchWords = "no-search-words"
    /// emptyLibrary.
    case emptyLibrary = "empty-library"
    /// libraryUnreadable.
    case libraryUnreadable = "library-unreadable"
    /// fallback: the model could not be reached.
    case modelUnreachable = "model-unreachable"
    /// fallback: the model's server refused the credentials.
    case modelAuthRefused = "model-auth-refused"
    /// fallback: the model's server failed.
    case modelServerError = "model-server-error"
    /// fallback: the model did not reply in time.
    case modelTimeout = "model-timeout"
    /// fallback: the model's reply was not in the required form.
    case modelSchemaMismatch = "model-schema-mismatch"
    /// fallback: the model declined.
    case modelRefused = "model-refused"
    /// fallback: the question and candidates did not fit the model's context.
    case contextTooLong = "context-too-long"
    /// fallback: the model's answer failed the audit (the rules are in `failedRules`).
    case auditFailed = "audit-failed"
    /// fallback: the deterministic picker was confident and the model left out what it found, or said none fits.
    case modelDisagreed = "model-disagreed"
}

/// Why a result is what it is.
public struct AskReason: Hashable, Sendable {
    public var code: AskReasonCode
    /// One or two plain sentences for the person who asked.
    public var message: String
    /// For `auditFailed`: the audit rules the replaced answer broke.
    public var failedRules: [AuditRule]

    public init(code: AskReasonCode, message: String, failedRules: [AuditRule] = []) {
        self.code = code
        self.message = message
        self.failedRules = failedRules
    }
}

/// The sentence of a cited snippet that the answer quotes: exactly the text of the snippet's file at `location`.
public struct AskQuote: Hashable, Sendable {
    /// Its number among the snippet's quotable sentences (`AskPipeline.quotableSentences(of:)`).
    public var sentence: Int
    public var field: QuoteField
    /// The sentence as the snippet shows it (`QuotableSentence.text`): a body line without its snippet syntax.
    public var text: String
    /// UTF-8 offsets into the answer covering exactly `text`.
    public var answerUTF8Range: Range<Int>
    /// Where its source text is in the snippet's file (snippet syntax included), in every position encoding.
    public var location: SourceLocation

    public init(sentence: Int, field: QuoteField, text: String, answerUTF8Range: Range<Int>, location: SourceLocation) {
        self.sentence = sentence
        self.field = field
        self.text = text
        self.answerUTF8Range = answerUTF8Range
        self.location = location
    }
}

/// A snippet the answer names, with where its title sits in the answer text.
public struct AskCitation: Hashable, Sendable {
    public var snippetID: SnippetID
    public var title: String
    /// UTF-8 offsets into the answer covering exactly `title` (quotes excluded).
    public var answerUTF8Range: Range<Int>
    public var location: SourceLocation
    /// The sentence of the snippet that answers, when one does.
    public var quote: AskQuote?

    public init(snippetID: SnippetID, title: String, answerUTF8Range: Range<Int>, location: SourceLocation, quote: AskQuote? = nil) {
        self.snippetID = snippetID
        self.title = title
        self.answerUTF8Range = answerUTF8Range
        self.location = location
        self.quote = quote
    }

    /// `answerUTF8Range` as offsets in code units of `encoding` into `answer`.
    public func answerRange(in answer: String, encoding: PositionEncoding) -> Range<Int> {
        Self.range(answerUTF8Range, in: answer, encoding: encoding)
    }

    /// A UTF-8 range of `answer` as offsets in code units of `encoding`.
    public static func range(_ utf8Range: Range<Int>, in answer: String, encoding: PositionEncoding) -> Range<Int> {
        let table = LineTable(answer)
        let start = encoding.length(of: table.slice(0..<utf8Range.lowerBound))
        let length = encoding.length(of: table.slice(utf8Range))
        return start..<(start + length)
    }
}

/// A snippet the answer looked at.
public struct AskCandidate: Hashable, Sendable {
    public var snippetID: SnippetID
    public var title: String
    public var location: SourceLocation

    public init(snippetID: SnippetID, title: String, location: SourceLocation) {
        self.snippetID = snippetID
        self.title = title
        self.location = location
    }

    /// The candidate entry for `snippet`.
    public init(_ snippet: Snippet) {
        self.init(snippetID: snippet.id, title: snippet.title, location: snippet.location)
    }
}

/// The answer to a question: one contract for the LSP method and the command line.
public struct AskResult: Hashable, Sendable {
    public var status: AskStatus
    /// One or two short sentences. Every title in it is a cited candidate's exact title.
    public var answer: String
    /// The words that were searched, question's own first.
    public var searchTerms: [String]
    public var citations: [AskCitation]
    /// Every snippet the answer looked at, best first.
    public var candidates: [AskCandidate]
    /// Why, whenever `status` is not `answered`.
    public var reason: AskReason?
    /// The configured model's role and the figures it came from; nil when no model is configured.
    public var model: ModelStanding?
    /// The sentence a trusted model chose to quote, of a cited snippet (`QuoteChoice.sentence` indexes the
    /// candidate's `PickCandidate.sentences`, which are `AskPipeline.quotableSentences(of:)` when the files can be
    /// read); that citation's `quote` is then this sentence. Not on the wire: the citation's quote is.
    public var modelQuote: QuoteChoice?
    /// How far meaning search had got (off without an encoder); nil where the caller did not use a library's facts.
    public var meaning: AskMeaning?
    /// Whether a cited snippet was found by meaning rather than by the question's words.
    public var foundByMeaning = false
    /// When nothing is named as the answer: the candidates the answer names as nearest the question in meaning, for
    /// the person to look at. Never citations: a meaning match is not evidence (see `AskPipeline.suggesting`).
    public var suggested: [SnippetID] = []
    /// For a trusted model: how its reply compared with an answer the server knows itself, where it knows one (see
    /// `TrustChecks`); nil otherwise. Not on the wire: the server keeps it to decide whether the model stays trusted.
    public var modelCheck: ModelCheck?

    public init(
        status: AskStatus, answer: String, searchTerms: [String], citations: [AskCitation] = [],
        candidates: [AskCandidate] = [], reason: AskReason? = nil
    ) {
        self.status = status
        self.answer = answer
        self.searchTerms = searchTerms
        self.citations = citations
        self.candidates = candidates
        self.reason = reason
    }

    /// Whether a model's answer was thrown away because it failed the audit.
    public var replacedModelAnswer: Bool { reason?.code == .auditFailed }
}
