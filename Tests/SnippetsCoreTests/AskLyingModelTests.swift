import Testing
@testable import SnippetsCore

/// A scripted model tries every way to lie; each lie is caught, the answer replaced by the deterministic one, and the
/// reason says which rule or fault it was.
@Suite struct AskLyingModelTests {
    static let question = "what's my VAT number?"
    static let deterministic = "Your library has \"VAT number\"."

    /// Asks the VAT question with `pick` and checks the fallback: the deterministic answer, with `code` and `rules`.
    func check(
        _ pick: ScriptedModel.Pick, code: AskReasonCode, rules: [AuditRule] = [], forbidden: String? = nil,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async throws {
        let result = try await ask(Self.question, model: ScriptedModel(pick: pick))
        #expect(result.status == .fallback, sourceLocation: sourceLocation)
        #expect(result.reason?.code == code, sourceLocation: sourceLocation)
        #expect(result.reason?.failedRules == rules, sourceLocation: sourceLocation)
        #expect(result.answer == Self.deterministic, sourceLocation: sourceLocation)
        #expect(result.citedTexts == ["VAT number"], sourceLocation: sourceLocation)
        if let forbidden { #expect(!result.answer.contains(forbidden), sourceLocation: sourceLocation) }
    }

    @Test func identifierOutsideTheCandidates() async throws {
        try await check(.reply(PickReply(status: .answered, cited: [id("Home address") + "x"])), code: .auditFailed,
                        rules: [.citedIDsRetrieved, .citationRangesExact])
        // A real snippet that was not retrieved for this question is no better.
        try await check(.reply(PickReply(status: .answered, cited: [id("Email signature")])), code: .auditFailed,
                        rules: [.citedIDsRetrieved, .citationRangesExact], forbidden: "Email signature")
    }

    @Test func aNoteOfTheModelsOwnWordsIsNotExpressible() async throws {
        // Each lie the old free-text note could carry: the reply is outside the schema, and nothing of it is read.
        for note in ["See also \"Tax ID card\".", "Your studio address London is elsewhere.", "It is DE318274591.", "Charge 680 a day.",
                     "It is on file. It is for invoices. It is yours.", "Your library contains a snippet called Free Upgrade Coupon."] {
            let request = PickRequest(question: Self.question, candidates: [PickCandidate(id: "s1", title: "VAT number", description: nil, excerpt: "")])
            #expect(throws: AskModelError.schemaMismatch(detail: "'note' must be one of the fixed choices")) {
                try PickReply(decodingModelOutput: "{\"status\":\"answered\",\"cited\":[\"s1\"],\"note\":\(JSONStringLiteral.quoted(note))}", for: request)
            }
            let result = try await ask(Self.question, model: ScriptedModel(pick: .raw("{\"status\":\"answered\",\"cited\":[],\"note\":\(JSONStringLiteral.quoted(note))}")))
            #expect(result.status == .fallback)
            #expect(result.reason?.code == .modelSchemaMismatch)
            #expect(result.answer == Self.deterministic)
        }
    }

    @Test func aFixedNoteIsTheServersSentence() async throws {
        for note in PickNote.allCases {
            let result = try await ask(Self.question, model: ScriptedModel(pick: .reply(PickReply(status: .answered, cited: [id("VAT number")], note: note))))
            #expect(result.status == .answered)
            #expect(result.answer == (note == .none ? Self.deterministic : Self.deterministic + " " + note.sentence))
        }
        // The schema offers exactly these keys.
        let request = PickRequest(question: Self.question, candidates: [PickCandidate(id: "s1", title: "VAT number", description: nil, excerpt: "")])
        #expect(request.responseSchema.contains(#""note":{"type":"string","enum":["","bestFirst","eachCoversPart","closestOnly"]}"#))
        #expect(!request.responseSchema.contains("maxLength"))
    }

    @Test func emptyOutput() async throws {
        try await check(.raw(""), code: .modelSchemaMismatch)
        try await check(.reply(PickReply(status: .answered, cited: [])), code: .auditFailed, rules: [.answerShape])
    }

    @Test func malformedOutput() async throws {
        try await check(.raw("{\"status\": \"answered\", \"cited\": "), code: .modelSchemaMismatch)
        try await check(.raw("[\"VAT number\"]"), code: .modelSchemaMismatch)
        try await check(.raw("{\"status\": \"sure\", \"cited\": []}"), code: .modelSchemaMismatch)
        try await check(.raw("{\"status\": \"answered\", \"cited\": [\"VAT number\"], \"note\": \"\"}"), code: .auditFailed,
                        rules: [.citedIDsRetrieved, .citationRangesExact])
    }

    @Test func contradictoryReply() async throws {
        try await check(.reply(PickReply(status: .noneFit, cited: [id("VAT number")])), code: .auditFailed,
                        rules: [.titlesAreCandidates, .citationRangesExact, .answerShape])
    }

    @Test func everyModelFaultHasItsOwnReason() async throws {
        let faults: [AskModelError] = [
            .unreachable(detail: "connection refused"), .authRefused(detail: "401"), .serverError(status: 502, detail: "bad gateway"),
            .timeout(seconds: 30), .schemaMismatch(detail: "not JSON"), .refusal(detail: "I can't help"),
            .contextTooLong(detail: "9000 tokens"),
        ]
        var messages: Set<String> = []
        for fault in faults {
            try await check(.fail(fault), code: fault.reasonCode)
            let atSearch = try await ask(Self.question, model: ScriptedModel(words: .failure(fault), pick: .reply(PickReply(status: .answered, cited: [id("VAT number")]))))
            #expect(atSearch.status == .fallback)
            #expect(atSearch.reason?.code == fault.reasonCode)
            #expect(atSearch.answer == Self.deterministic)
            messages.insert(try #require(atSearch.reason?.message))
        }
        #expect(Set(faults.map(\.reasonCode)).count == faults.count)
        #expect(messages.count == faults.count)
    }

    @Test func modelFaultWithNothingRetrievedIsNotNoMatch() async throws {
        let result = try await ask("banana bread", model: ScriptedModel(words: .failure(.timeout(seconds: 5)), pick: .fail(.timeout(seconds: 5))))
        #expect(result.status == .fallback)
        #expect(result.reason?.code == .modelTimeout)
    }

    @Test func cancellationStopsALongAsk() async throws {
        let slow = ScriptedModel(pick: .reply(PickReply(status: .answered, cited: [id("VAT number")])), delay: .seconds(30))
        let task = Task { try await ask(Self.question, model: slow) }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
