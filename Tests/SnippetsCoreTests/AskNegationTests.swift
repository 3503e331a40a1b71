import Testing
@testable import SnippetsCore

@Suite struct AskNegationTests {
    private let library = askLibrary([
        ("Thank you after payment", "Confirm that an invoice was paid", "Payment received, thank you!"),
        ("Overdue payment reminder", "First, friendly chase for an unpaid invoice", "Invoice ${1:INV-0000} is now overdue."),
        ("Reply received", "Acknowledge a reply", "Thanks for your reply!"),
    ])

    @Test func aNegatedWordIsSearchedInItsNegatedForm() {
        let words = QuestionWord.words(in: "what do I send someone who hasn't paid?")
        #expect(words.map(\.word) == ["paid"])
        #expect(words.first?.forms == ["unpaid", "unpay", "paid", "pay"])
        #expect(QuestionWord.words(in: "the invoice has not yet been paid").map(\.forms).last == ["unpaid", "unpay", "paid", "pay"])
        // Only the word right after the negation is negated.
        #expect(QuestionWord.words(in: "I don't want a meeting").map(\.forms) == [["meeting"]])
    }

    @Test func theOppositeSnippetIsNeverNamedForANegatedQuestion() async throws {
        let result = try await ask("what do I send someone who hasn't paid?", library: library)
        #expect(result.status == .answered)
        #expect(result.citations.map(\.title) == ["Overdue payment reminder"])
    }

    @Test func withoutANegatedFormInTheLibraryNothingIsNamed() async throws {
        let result = try await ask("the client hasn't replied, what now?", library: library)
        #expect(result.citations.isEmpty)
        #expect(result.status == .noMatch)
        // The snippet that only matches the plain word is still shown as looked at.
        #expect(result.candidates.map(\.title) == ["Reply received"])
    }
}
