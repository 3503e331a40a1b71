import Testing
@testable import SnippetsCore

/// Agreement between the model and the deterministic picker: where the question's own words clearly name snippets,
/// the model can confirm them but not drop them; where they do not, the model's pick stands.
@Suite struct AskAgreementTests {
    static let literal = "what is my home address?"
    static let deterministic = "Your library has \"Home address\"."

    func picking(_ titles: [String], note: PickNote = .none) -> ScriptedModel {
        ScriptedModel(pick: .computed { request in
            PickReply(status: .answered, cited: titles.compactMap { title in request.candidates.first { $0.title == title }?.id }, note: note)
        })
    }

    @Test func aModelThatLeavesOutTheConfidentPickIsOverruled() async throws {
        let plain = try await ask(Self.literal)
        #expect(plain.status == .answered && plain.citedTexts == ["Home address"])
        let candidates = plain.candidates.map(\.title)
        let others = candidates.filter { $0 != "Home address" }
        try #require(!others.isEmpty)
        let result = try await ask(Self.literal, model: picking([others[0]]))
        #expect(result.status == .fallback)
        #expect(result.reason?.code == .modelDisagreed)
        #expect(result.reason?.message.hasPrefix("The model disagreed with the question's own words (it left out the snippet they match)") == true)
        #expect(result.answer == Self.deterministic)
        #expect(result.citedTexts == ["Home address"])
    }

    @Test func aModelThatFindsNoneIsOverruledWhereTheWordsAreClear() async throws {
        let result = try await ask(Self.literal, model: ScriptedModel(pick: .reply(PickReply(status: .noneFit, cited: []))))
        #expect(result.status == .fallback)
        #expect(result.reason?.code == .modelDisagreed)
        #expect(result.reason?.message.contains("said none of the") == true)
        #expect(result.answer == Self.deterministic)
    }

    @Test func aModelThatAddsToTheConfidentPickGetsTheDeterministicAnswer() async throws {
        let plain = try await ask(Self.literal)
        let others = plain.candidates.map(\.title).filter { $0 != "Home address" }
        try #require(!others.isEmpty)
        let result = try await ask(Self.literal, model: picking(["Home address", others[0]], note: .eachCoversPart))
        #expect(result.status == .answered)
        #expect(result.answer == Self.deterministic)
        #expect(result.citedTexts == ["Home address"])
        // Agreeing exactly keeps the model's own answer, with the fixed sentence it chose.
        let agreed = try await ask(Self.literal, model: picking(["Home address"], note: .bestFirst))
        #expect(agreed.status == .answered)
        #expect(agreed.answer == Self.deterministic + " The first fits best.")
    }

    /// A library where the snippets use other words than the questions: the deterministic picker abstains, and a
    /// capable model that knows what they mean answers.
    static let bridgeLibrary = askLibrary([
        ("Overdue payment reminder", "First chase for an invoice", "Hi, invoice INV-1 is now overdue; please settle it."),
        ("Final notice before collection", "Last chase", "This invoice will go to a collection agency in 7 days."),
        ("Out of office", "Holiday auto-reply", "I am away until Monday and will reply then."),
        ("Thank you for the payment", "Receipt", "Thanks, your payment for the invoice arrived."),
    ])
    static let bridges: [(question: String, words: [String], expect: [String])] = [
        ("what do I send someone who hasn't paid me?", ["overdue", "chase", "invoice"], ["Overdue payment reminder"]),
        ("how do I tell people I'm on vacation?", ["holiday", "away", "office"], ["Out of office"]),
    ]

    @Test func whereTheDeterministicPickerAbstainsTheModelsPickStands() async throws {
        for bridge in Self.bridges {
            let ideal = ScriptedModel(words: .success(bridge.words), pick: .computed { request in
                PickReply(status: .answered, cited: request.candidates.filter { bridge.expect.contains($0.title) }.map(\.id))
            })
            let plain = try await ask(bridge.question, library: Self.bridgeLibrary, model: ScriptedModel(words: .success(bridge.words), pick: .fail(.timeout(seconds: 1))))
            #expect(plain.citations.isEmpty, "the deterministic picker abstains on \(bridge.question)")
            let helped = try await ask(bridge.question, library: Self.bridgeLibrary, model: ideal)
            #expect(helped.status == .answered)
            #expect(helped.citedTexts == bridge.expect)
            // A model that finds none there is believed.
            let none = try await ask(bridge.question, library: Self.bridgeLibrary, model: ScriptedModel(words: .success(bridge.words), pick: .reply(PickReply(status: .noneFit, cited: []))))
            #expect(none.status == .noMatch && none.reason?.code == .modelFoundNone)
        }
    }
}
