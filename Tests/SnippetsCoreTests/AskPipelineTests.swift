import Testing
@testable import SnippetsCore

@Suite struct AskPipelineTests {
    @Test func literalQuestionIsAnsweredWithExactCitations() async throws {
        let result = try await ask("where is my invoice footer?")
        #expect(result.status == .answered)
        #expect(result.reason == nil)
        #expect(result.answer == "Your library has \"Invoice footer\".")
        #expect(result.citations.map(\.title) == ["Invoice footer"])
        #expect(result.citedTexts == ["Invoice footer"])
        #expect(result.citations.first?.location.range.start.line == 1)
        #expect(result.candidates.contains { $0.title == "Invoice footer" })
        #expect(result.searchTerms.starts(with: ["invoice", "footer"]))
    }

    @Test func rangesAreExactInEveryEncoding() async throws {
        let result = try await ask("when is the café open?")
        #expect(result.status == .answered)
        let citation = try #require(result.citations.first)
        #expect(citation.title == "Café opening hours")
        let utf16 = Array(result.answer.utf16)
        let range16 = citation.answerRange(in: result.answer, encoding: .utf16)
        #expect(String(decoding: utf16[range16], as: UTF16.self) == "Café opening hours")
        let scalars = Array(result.answer.unicodeScalars)
        let range32 = citation.answerRange(in: result.answer, encoding: .utf32)
        #expect(String(String.UnicodeScalarView(scalars[range32])) == "Café opening hours")
        #expect(range16 == range32)  // no astral characters: UTF-16 and scalars agree
        #expect(citation.answerRange(in: result.answer, encoding: .utf8) == citation.answerUTF8Range)
    }

    @Test func irregularFormsAreSearchedWithoutAModel() async throws {
        let library = askLibrary([("Thank you after payment", "Confirm that an invoice was paid", "Payment received, thank you!")])
        let result = try await ask("the client pays late", library: library)
        #expect(result.searchTerms.contains("pays"))
        let paid = try await ask("who paid?", library: library)
        #expect(paid.searchTerms == ["paid", "pay"])
        #expect(paid.status == .answered)
    }

    @Test func emptyLibrarySaysWhereItLooked() async throws {
        let result = try await ask("invoice", library: SnippetLibrary(files: [], searchedPaths: ["/home/mira/snippets"]))
        #expect(result.status == .emptyLibrary)
        #expect(result.reason?.code == .emptyLibrary)
        #expect(result.reason?.message.contains("/home/mira/snippets") == true)
        // Every format the server reads is named, yasnippet's and espanso's too.
        #expect(result.reason?.message.hasSuffix("espanso match/*.yml files or yasnippet <major-mode>/ folders there.") == true)
        #expect(!result.answer.contains("matches"))
        let unconfigured = try await ask("invoice", library: .empty)
        #expect(unconfigured.status == .emptyLibrary)
        #expect(unconfigured.reason?.message != result.reason?.message)
    }

    @Test func unreadableLibraryIsNotCalledEmpty() async throws {
        let broken = SnippetFile(
            uri: "file:///lib/a.json", path: "/lib/a.json", format: .vscode,
            diagnostics: [LibraryDiagnostic(uri: "file:///lib/a.json", position: SourcePosition(line: 0, asciiColumn: 0), severity: .error, code: .jsonSyntax, message: "a.json: expected '}' at line 3.")])
        let result = try await ask("invoice", library: SnippetLibrary(files: [broken], searchedPaths: ["/lib"]))
        #expect(result.status == .libraryUnreadable)
        #expect(result.reason?.message.contains("expected '}'") == true)
        let missing = SnippetLibrary(
            files: [],
            loaderDiagnostics: [LibraryDiagnostic(uri: "file:///nowhere", position: SourcePosition(line: 0, asciiColumn: 0), severity: .error, code: .missingPath, message: "/nowhere does not exist.")],
            searchedPaths: ["/nowhere"])
        #expect(try await ask("invoice", library: missing).status == .libraryUnreadable)
    }

    /// "Nothing matches" is never said about a library that was only partly searched: a missing path and a file
    /// that failed to load are named; an answer that names a snippet, or a library read whole, says nothing more.
    @Test func aPartlyReadLibraryDoesNotSayNothingMatches() async throws {
        let footer = #"{"Invoice footer": {"prefix": "invfoot", "body": "Payment is due within 30 days."}}"#
        let fileSystem = InMemoryFileSystem(files: ["/lib/a.code-snippets": footer, "/lib/b.code-snippets": "{ broken"])
        let partly = LibraryLoader(fileSystem: fileSystem).load(paths: ["/lib", "/work/snippets"])
        let nothing = try await ask("what's the recipe for banana bread?", library: partly)
        #expect(nothing.status == .noMatch)
        #expect(nothing.answer.contains("Part of your library could not be read, so it was not searched."), "\(nothing.answer)")
        let message = try #require(nothing.reason?.message)
        #expect(message.contains("/work/snippets") && message.contains("/lib/b.code-snippets"), "\(message)")
        let found = try await ask("where is my invoice footer?", library: partly)
        #expect(found.status == .answered)
        #expect(found.answer == "Your library has \"Invoice footer\".")
        let whole = LibraryLoader(fileSystem: InMemoryFileSystem(files: ["/lib/a.code-snippets": footer])).load(paths: ["/lib"])
        let wholeNothing = try await ask("what's the recipe for banana bread?", library: whole)
        #expect(wholeNothing.answer == "Nothing in your library matches this question.")
        #expect(wholeNothing.reason?.message.contains("Not searched") == false)
    }

    @Test func nothingRetrievedListsTheSearchedWords() async throws {
        let result = try await ask("what's the recipe for banana bread?")
        #expect(result.status == .noMatch)
        #expect(result.reason?.code == .nothingRetrieved)
        #expect(result.searchTerms == ["recipe", "banana", "bread"])
        #expect(result.candidates.isEmpty && result.citations.isEmpty)
    }

    @Test func weakMatchesAbstainInsteadOfCiting() async throws {
        // "number" is in the library; "passport" is not: the question is about something absent.
        let result = try await ask("what is my passport number?")
        #expect(result.status == .noMatch)
        #expect(result.reason?.code == .nothingFits)
        #expect(result.citations.isEmpty)
        #expect(result.candidates.map(\.title).contains("VAT number"))
    }

    @Test func questionOfCommonWordsSearchesNothing() async throws {
        let result = try await ask("which snippet do I use?")
        #expect(result.status == .noMatch)
        #expect(result.reason?.code == .noSearchWords)
        #expect(result.searchTerms.isEmpty)
    }

    @Test func instructionSentencesAreNotEvidence() async throws {
        // "coupon" occurs only inside an instruction to an assistant: nothing fits.
        let result = try await ask("is there a coupon in my library?")
        #expect(result.citations.isEmpty)
        #expect(!result.answer.contains("Free Upgrade Coupon"))
        let brief = try await ask("what did the client brief say?")
        #expect(brief.citations.map(\.title) == ["Instructions from a client"])
        #expect(!brief.answer.contains("Coupon"))
    }

    @Test func theDocumentsLanguageRanksFirst() async throws {
        let library = askLibrary(
            [("Swift guard let", "Early exit for optionals", "guard let x else { return }"),
             ("Python main guard", "Entry point guard", "if __name__ == \"__main__\":")],
            scopes: ["Swift guard let": ["swift"], "Python main guard": ["python"]])
        let result = try await ask("guard", library: library, language: "python")
        // The whole library is searched, the document's language first; only its snippets are named.
        #expect(result.candidates.map(\.title) == ["Python main guard", "Swift guard let"])
        #expect(result.citations.map(\.title) == ["Python main guard"])
        // Naming a language of the library scopes the question the same way.
        let named = try await ask("an early exit guard in swift", library: library)
        #expect(named.candidates.first?.title == "Swift guard let")
        #expect(!named.searchTerms.contains("swift"))
        #expect(named.citations.map(\.title) == ["Swift guard let"])
    }

    @Test func modelWordsAreAddedNeverInstead() async throws {
        let model = ScriptedModel(
            words: .success(["overdue", "unpaid"]),
            pick: .computed { request in
                PickReply(status: .answered, cited: [request.candidates.first { $0.title == "Overdue payment reminder" }!.id], note: .bestFirst)
            })
        let result = try await ask("what do I send someone who hasn't paid?", model: model)
        #expect(result.searchTerms.starts(with: ["unpaid", "unpay", "paid", "pay"]))
        #expect(result.searchTerms.contains("overdue"))
        #expect(result.status == .answered)
        #expect(result.answer == "Your library has \"Overdue payment reminder\". The first fits best.")
        #expect(result.citedTexts == ["Overdue payment reminder"])
    }

    @Test func modelSeesNoInstructionSentences() async throws {
        final class Box: @unchecked Sendable { var request: PickRequest? }  // written once, read after the await
        let box = Box()
        let model = ScriptedModel(pick: .computed { request in box.request = request; return PickReply(status: .noneFit, cited: []) })
        let result = try await ask("what did the client brief say?", model: model)
        // The question's own words name the brief: a model that finds none is overruled.
        #expect(result.status == .fallback)
        #expect(result.reason?.code == .modelDisagreed)
        #expect(result.citedTexts == ["Instructions from a client"])
        let request = try #require(box.request)
        #expect(request.candidates.allSatisfy { !$0.excerpt.contains("Ignore all previous") })
        #expect(request.responseSchema.contains(request.candidates[0].id))
    }
}

@Suite struct AskQuestionWordTests {
    @Test func compoundsAreSearchedButWeighedOnce() {
        let words = QuestionWord.words(in: "which auto-reply for parseHTTPResponse?")
        #expect(words.map(\.word) == ["auto", "reply", "auto-reply", "parse", "http", "response", "parsehttpresponse"])
        #expect(words.filter(\.isCompound).map(\.word) == ["auto-reply", "parsehttpresponse"])
        #expect(QuestionWord.words(in: "what's my pay?").map(\.isCompound) == [false])
    }
}
