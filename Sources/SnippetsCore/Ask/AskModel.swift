import Foundation

/// A language model the ask pipeline may consult. It only ever proposes search words and picks among candidates the
/// core retrieved; everything it returns is checked before a person sees it, and the pipeline works without one.
public protocol AskModel: Sendable {
    /// Extra search words for `question`. They are added to the question's own words, never used instead of them.
    func searchWords(question: String) async throws(AskModelError) -> [String]
    /// Which of `request.candidates` answer the question. Implementations decode the model's raw output with
    /// `PickReply(decodingModelOutput:for:)`, whose schema (`request.responseSchema`) allows only this question's ids.
    func pick(_ request: PickRequest) async throws(AskModelError) -> PickReply
}

/// Why a model gave no usable reply. Each case has its own reason code, so no two faults read the same.
public enum AskModelError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The model's server could not be reached (connection refused, unknown host, network down).
    case unreachable(detail: String)
    /// The server refused the credentials (HTTP 401/403).
    case authRefused(detail: String)
    /// The server answered with an error (HTTP 5xx or an unexpected status).
    case serverError(status: Int, detail: String)
    /// No reply within the time allowed.
    case timeout(seconds: Double)
    /// The reply did not fit the schema it was asked for (malformed JSON, missing fields, empty output).
    case schemaMismatch(detail: String)
    /// The model declined to answer.
    case refusal(detail: String)
    /// The question and candidates did not fit the model's context window.
    case contextTooLong(detail: String)

    /// The stable reason code a result carries when this fault caused a fallback.
    public var reasonCode: AskReasonCode {
        switch self {
        case .unreachable: .modelUnreachable
        case .authRefused: .modelAuthRefused
        case .serverError: .modelServerError
        case .timeout: .modelTimeout
        case .schemaMismatch: .modelSchemaMismatch
        case .refusal: .modelRefused
        case .contextTooLong: .contextTooLong
        }
    }

    public var description: String {
        switch self {
        case .unreachable(let detail): "the model could not be reached (\(detail))"
        case .authRefused(let detail): "the model's server refused the credentials (\(detail))"
        case .serverError(let status, let detail): "the model's server failed with status \(status) (\(detail))"
        case .timeout(let seconds): "the model did not reply within \(Self.format(seconds)) seconds"
        case .schemaMismatch(let detail): "the model's reply was not in the expected form (\(detail))"
        case .refusal(let detail): "the model declined to answer (\(detail))"
        case .contextTooLong(let detail): "the question and snippets were too long for the model (\(detail))"
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

/// One candidate as the model sees it: text the core chose to show, with instruction-like sentences removed.
public struct PickCandidate: Hashable, Sendable {
    /// The snippet identifier: one of the values the reply schema allows.
    public var id: String
    public var title: String
    public var description: String?
    /// The body as plain text, sentences that read as instructions replaced by a marker.
    public var excerpt: String
    /// The sentences a quote may be chosen from (description, then trusted body sentences), exactly as written;
    /// offered to the model only when `PickRequest.offersQuoteChoice`.
    public var sentences: [String]

    public init(id: String, title: String, description: String?, excerpt: String, sentences: [String] = []) {
        self.id = id
        self.title = title
        self.description = description
        self.excerpt = excerpt
        self.sentences = sentences
    }
}

/// A sentence of a candidate chosen to quote: a choice among the keys the per-question schema lists, never text.
public struct QuoteChoice: Hashable, Sendable {
    public var candidateID: String
    /// Index into that candidate's `sentences`.
    public var sentence: Int

    public init(candidateID: String, sentence: Int) {
        self.candidateID = candidateID
        self.sentence = sentence
    }

    /// The schema's key for it: `<id>#<n>`, counted from 1.
    public var key: String { "\(candidateID)#\(sentence + 1)" }
}

/// What the model is asked to choose from: built per question, so citing an unseen snippet is not expressible.
public struct PickRequest: Hashable, Sendable {
    public var question: String
    public var candidates: [PickCandidate]
    /// Whether the model may choose a sentence to quote (a trusted model does): then the schema has a `quote`
    /// member whose enum is every candidate sentence's key, plus `""` for none.
    public var offersQuoteChoice: Bool

    public init(question: String, candidates: [PickCandidate], offersQuoteChoice: Bool = false) {
        self.question = question
        self.candidates = candidates
        self.offersQuoteChoice = offersQuoteChoice
    }

    /// The identifiers a reply may cite: the enum of the reply schema.
    public var candidateIDs: [String] { candidates.map(\.id) }

    /// The quote choices the schema allows, in order (empty unless `offersQuoteChoice`).
    public var quoteChoices: [QuoteChoice] {
        guard offersQuoteChoice else { return [] }
        return candidates.flatMap { candidate in candidate.sentences.indices.map { QuoteChoice(candidateID: candidate.id, sentence: $0) } }
    }

    /// The JSON Schema for constrained decoding of the reply: `status`, `cited` (only this question's ids), `note`
    /// (one of the fixed `PickNote` keys, so the model chooses a sentence the server wrote and cannot write its own).
    public var responseSchema: String {
        let ids = candidateIDs.map(JSONStringLiteral.quoted).joined(separator: ",")
        let notes = PickNote.allCases.map { JSONStringLiteral.quoted($0.rawValue) }.joined(separator: ",")
        guard offersQuoteChoice else {
            return """
                {"type":"object","additionalProperties":false,"required":["status","cited","note"],\
                "properties":{"status":{"type":"string","enum":["answered","noneFit"]},\
                "cited":{"type":"array","maxItems":\(max(1, candidates.count)),"items":{"type":"string","enum":[\(ids)]}},\
                "note":{"type":"string","enum":[\(notes)]}}}
                """
        }
        let quotes = ([""] + quoteChoices.map(\.key)).map(JSONStringLiteral.quoted).joined(separator: ",")
        return """
            {"type":"object","additionalProperties":false,"required":["status","cited","note","quote"],\
            "properties":{"status":{"type":"string","enum":["answered","noneFit"]},\
            "cited":{"type":"array","maxItems":\(max(1, candidates.count)),"items":{"type":"string","enum":[\(ids)]}},\
            "note":{"type":"string","enum":[\(notes)]},"quote":{"type":"string","enum":[\(quotes)]}}}
            """
    }
}

/// The only remarks a model can add to an answer: a choice among sentences the server wrote, the way its citations
/// are a choice among retrieved ids. A claim of the model's own is not expressible.
public enum PickNote: String, Hashable, Sendable, CaseIterable {
    /// No remark.
    case none = ""
    /// The first cited snippet fits best.
    case bestFirst
    /// Each cited snippet covers part of the question.
    case eachCoversPart
    /// The cited snippets come closest, but none fits exactly.
    case closestOnly

    /// The sentence the server adds to the answer for this choice (empty for `none`).
    public var sentence: String {
        switch self {
        case .none: ""
        case .bestFirst: "The first fits best."
        case .eachCoversPart: "Each covers part of the question."
        case .closestOnly: "These come closest, though none fits exactly."
        }
    }
}

/// The model's choice among the candidates. Every field is checked by the audit before use.
public struct PickReply: Hashable, Sendable {
    /// Whether the model found an answer among the candidates.
    public enum Status: String, Hashable, Sendable {
        case answered
        case noneFit
    }

    public var status: Status
    /// Identifiers of the candidates the model cites, as the model wrote them.
    public var cited: [String]
    /// The fixed sentence the model chose to add, if any; never text of its own.
    public var note: PickNote
    /// The sentence the model chose to quote, when the request offered the choice; a key, never text.
    public var quote: QuoteChoice?

    public init(status: Status, cited: [String], note: PickNote = .none, quote: QuoteChoice? = nil) {
        self.status = status
        self.cited = cited
        self.note = note
        self.quote = quote
    }

    /// Decodes a model's raw JSON output against the reply schema of `request`.
    /// Malformed or empty output is `schemaMismatch`; an id outside the request's list is kept so the audit names it.
    public init(decodingModelOutput output: String, for request: PickRequest) throws(AskModelError) {
        let trimmed = output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .schemaMismatch(detail: "empty output") }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(trimmed.utf8))
        } catch {
            throw .schemaMismatch(detail: "not JSON")
        }
        guard let fields = object as? [String: Any] else { throw .schemaMismatch(detail: "not a JSON object") }
        guard let statusText = fields["status"] as? String, let status = Status(rawValue: statusText) else {
            throw .schemaMismatch(detail: "'status' must be \"answered\" or \"noneFit\"")
        }
        guard let cited = fields["cited"] as? [String] else {
            throw .schemaMismatch(detail: "'cited' must be a list of identifiers")
        }
        // A note outside the fixed choices is a reply outside the schema: its words are never read, let alone shown.
        let note: PickNote
        switch fields["note"] {
        case nil: note = .none
        case let text as String:
            guard let choice = PickNote(rawValue: text) else {
                throw .schemaMismatch(detail: "'note' must be one of the fixed choices")
            }
            note = choice
        default: throw .schemaMismatch(detail: "'note' must be one of the fixed choices")
        }
        // A quote is a key from the schema's enum: anything else (text of the model's own included) is a mismatch.
        var quote: QuoteChoice?
        if request.offersQuoteChoice, let value = fields["quote"] {
            guard let key = value as? String else { throw .schemaMismatch(detail: "'quote' must be one of the listed sentence keys") }
            if !key.isEmpty {
                guard let choice = request.quoteChoices.first(where: { $0.key == key }) else {
                    throw .schemaMismatch(detail: "'quote' must be one of the listed sentence keys")
                }
                quote = choice
            }
        }
        self.init(status: status, cited: cited, note: note, quote: quote)
    }
}

/// JSON string literals for text the core and the server assemble by hand (a per-question schema, an entry added
/// to a snippet file) without an encoder.
public enum JSONStringLiteral {
    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
