import Testing

@testable import SnippetsCore

@Suite struct LearnedWordsFileEditTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func aMissingFileBecomesOneSmallReadableFile() throws {
        let bytes = try LearnedWordsFileEdit.adding(["café", "owes"], file: "billing.code-snippets", title: "Unpaid account chase", to: nil)
        #expect(text(bytes) == """
            {
            \t"billing.code-snippets": {
            \t\t"Unpaid account chase": ["café", "owes"]
            \t}
            }

            """)
    }

    @Test func addingKeepsEveryOtherByteCommentsAndHandEditsIncluded() throws {
        let original = """
            {
              // shared with the team
              "billing.code-snippets": {
                "Unpaid account chase": ["café",   "owes"], /* hand-added */
                "Other": ["kept"]
              }
            }
            """
        let bytes = try LearnedWordsFileEdit.adding(["owing", "money", "Café"], file: "billing.code-snippets", title: "Unpaid account chase", to: Array(original.utf8))
        // Only the entry's array changed; words it has (by stem, any case) are not added twice.
        #expect(text(bytes) == original.replacingOccurrences(of: "[\"café\",   \"owes\"]", with: "[\"café\", \"owes\", \"money\"]"))
    }

    @Test func newEntriesAndFilesGoLastWithTheFilesIndentationAndLineBreaks() throws {
        let original = "{\r\n    \"a.json\": {\r\n        \"A\": [\"x\"]\r\n    }\r\n}\r\n"
        let entry = try LearnedWordsFileEdit.adding(["y"], file: "a.json", title: "B", to: Array(original.utf8))
        #expect(text(entry) == "{\r\n    \"a.json\": {\r\n        \"A\": [\"x\"],\r\n        \"B\": [\"y\"]\r\n    }\r\n}\r\n")
        let file = try LearnedWordsFileEdit.adding(["z"], file: "dir/b.code-snippets", title: "C", to: entry)
        #expect(text(file).hasPrefix(text(entry).replacingOccurrences(of: "    }\r\n}\r\n", with: "    },")))
        let parsed = LearnedWords.parse(file, uri: "file:///l/.snippets-learned.json")
        #expect(parsed.diagnostics.isEmpty)
        #expect(parsed.entries == [
            LearnedEntry(file: "a.json", title: "A", words: ["x"]), LearnedEntry(file: "a.json", title: "B", words: ["y"]),
            LearnedEntry(file: "dir/b.code-snippets", title: "C", words: ["z"]),
        ])
    }

    @Test func anUnreadableFileIsRefusedAndLeftAlone() {
        #expect(throws: LearnedWordsEditError.self) {
            try LearnedWordsFileEdit.adding(["x"], file: "a.json", title: "A", to: Array("{ \"a.json\": ".utf8))
        }
        #expect(throws: LearnedWordsEditError.self) {
            try LearnedWordsFileEdit.adding(["x"], file: "a.json", title: "A", to: Array("[1]".utf8))
        }
    }

    @Test func forgettingRemovesWordsThenEmptyEntriesThenEmptyFiles() throws {
        let original = """
            {
            \t"a.json": {
            \t\t"A": ["café", "owes", "money"],
            \t\t"B": ["money"]
            \t},
            \t"b.json": {
            \t\t"C": ["weather"]
            \t}
            }

            """
        let bytes = Array(original.utf8)
        // A question's words, from every snippet: "money" goes from A and B; B, left empty, goes.
        let question = try LearnedWordsFileEdit.forgetting(words: ["money"], file: nil, title: nil, in: bytes)
        #expect(question.removedWords == 2)
        #expect(text(question.bytes) == original.replacingOccurrences(of: ", \"money\"],\n\t\t\"B\": [\"money\"]", with: "]"))
        // A whole snippet's entry; its file object, left empty, goes too.
        let snippet = try LearnedWordsFileEdit.forgetting(words: nil, file: "b.json", title: "C", in: bytes)
        #expect(snippet.removedWords == 1)
        #expect(text(snippet.bytes) == original.replacingOccurrences(of: "\t},\n\t\"b.json\": {\n\t\t\"C\": [\"weather\"]\n\t}\n", with: "\t}\n"))
        #expect(LearnedWords.parse(snippet.bytes, uri: "file:///x").diagnostics.isEmpty)
        // Nothing matching: nothing changes.
        let none = try LearnedWordsFileEdit.forgetting(words: ["unrelated"], file: nil, title: nil, in: bytes)
        #expect(none.removedWords == 0 && none.bytes == bytes)
    }
}

@Suite struct LearnedWordsTests {
    let chase = askLibrary([("Unpaid account chase", "Polite reminder for an invoice past its due date", "Could you arrange payment this week?")]).snippets[0]

    @Test func learnsTheQuestionsContentWordsTheSnippetLacks() {
        #expect(LearnedWords.wordsToLearn(from: "a café still owes me money for the invoice", for: chase) == ["café", "owes", "money"])
        // Negated words are learned in their negated form; fillers, numbers and everyday words never.
        let rates = askLibrary([("Rate card", "Prices to send to prospective clients", "Day rate: 680")]).snippets[0]
        #expect(LearnedWords.wordsToLearn(from: "the florist hasn't paid 40 euros since last year", for: rates) == ["florist", "unpaid", "euros", "since"])
        // The chase already says "Unpaid": only the words it lacks.
        #expect(LearnedWords.wordsToLearn(from: "the florist hasn't paid 40 euros since last year", for: chase) == ["florist", "euros", "since"])
        // Words already learned (by stem) are not learned again.
        #expect(LearnedWords.wordsToLearn(from: "the café owed money", for: chase, alreadyLearned: ["café", "owes"]) == ["money"])
    }

    @Test func parsingReportsSyntaxAndShapeProblemsWithPositions() {
        let syntax = LearnedWords.parse(Array("{\n  \"a.json\": {\n    \"A\": [\"x\",]\n".utf8), uri: "file:///l")
        #expect(syntax.entries.isEmpty)
        #expect(syntax.diagnostics.map(\.code.rawValue) == ["learned-syntax"])
        let shape = LearnedWords.parse(Array("{\"a.json\": {\"A\": \"x\", \"B\": [\"y\"]}, \"b.json\": 3}".utf8), uri: "file:///l")
        #expect(shape.entries == [LearnedEntry(file: "a.json", title: "B", words: ["y"])])
        #expect(shape.diagnostics.map(\.code.rawValue) == ["learned-shape", "learned-shape"])
    }

    @Test func oversizedFilesAndWordsAreNotUsed() {
        let long = String(repeating: "x", count: LearnedWords.maximumWordLength + 1)
        let many = (0..<100).map { "word\($0)" }
        let learned = LearnedWords(wordsBySnippet: [chase.id: [long, "café"] + many])
        #expect(learned.words(for: chase.id).first == "café")
        #expect(learned.words(for: chase.id).count == LearnedWords.maximumWordsPerSnippet)
        let fileSystem = InMemoryFileSystem(files: [
            "/lib/a.code-snippets": #"{"A": {"prefix": "a", "body": "b"}}"#,
            "/lib/.snippets-learned.json": "{\"a.code-snippets\": {\"A\": [\"" + String(repeating: "y", count: LearnedWords.maximumFileSize) + "\"]}}",
        ])
        let library = LibraryLoader(fileSystem: fileSystem).load(paths: ["/lib"])
        let loaded = LearnedWords.load(folders: ["/lib"], fileSystem: fileSystem, library: library)
        #expect(loaded.isEmpty)
        #expect(loaded.diagnostics.map(\.code.rawValue) == ["learned-too-large"])
    }

    @Test func loadingMatchesEntriesToSnippetsAndWarnsAboutGoneOnes() {
        let fileSystem = InMemoryFileSystem(files: [
            "/lib/personal.code-snippets": #"{"Unpaid account chase": {"prefix": "chase", "body": "Pay up"}}"#,
            "/lib/.snippets-learned.json": """
                {
                  "personal.code-snippets": {"Unpaid account chase": ["café", "owes"], "Deleted one": ["x"]},
                  "gone.json": {"Other": ["y"]}
                }
                """,
        ])
        let library = LibraryLoader(fileSystem: fileSystem).load(paths: ["/lib"])
        #expect(library.snippets.count == 1)
        let learned = LearnedWords.load(folders: ["/lib"], fileSystem: fileSystem, library: library)
        #expect(learned.words(for: library.snippets[0].id) == ["café", "owes"])
        #expect(learned.diagnostics.map(\.severity) == [.warning, .warning])
        #expect(learned.diagnostics.map(\.code.rawValue) == ["learned-snippet-gone", "learned-snippet-gone"])
        #expect(learned.diagnostics[0].position.line == 1)
        #expect(learned.diagnostics[0].message.contains("\"Deleted one\""))
    }
}

@Suite struct AskLearningTests {
    let library = freelancerLibrary

    func learned(_ words: [String], for title: String) -> LearnedWords {
        LearnedWords(wordsBySnippet: [library.snippets.first { $0.title == title }!.id: words])
    }

    func answer(_ question: String, learned: LearnedWords = .none) async throws -> AskResult {
        try await AskPipeline(library: library, learned: learned).answer(AskRequest(question: question))
    }

    @Test func learnedWordsAnswerAndTheAnswerSaysSo() async throws {
        let question = "a florist still owes me money"
        #expect(try await answer(question).status == .noMatch)
        let result = try await answer(question, learned: learned(["florist", "owes", "money"], for: "Overdue payment reminder"))
        #expect(result.status == .answered)
        #expect(result.citations.map(\.title) == ["Overdue payment reminder"])
        #expect(result.answer == "Your library has \"Overdue payment reminder\". Matched words you used before: florist, owes, money.")
    }

    @Test func questionsSharingOnlyCommonOrFewLearnedWordsAreStillDeclined() async throws {
        // "invoice" is in several snippets' own text: learning it for one says nothing about that one.
        let taught = learned(["florist", "invoice", "money"], for: "Rate card")
        #expect(try await answer("where is the invoice for my passport renewal", learned: taught).status == .noMatch)
        // One learned word among several words the library lacks is not enough.
        #expect(try await answer("how much money does a sourdough bakery make", learned: taught).status == .noMatch)
    }

    @Test func withoutLearnedWordsAnswersAreExactlyAsBefore() async throws {
        for question in ["how do I remind a client about an unpaid invoice?", "my VAT number", "passport number", "the café hours"] {
            let plain = try await AskPipeline(library: library).answer(AskRequest(question: question))
            let unrelated = try await answer(question, learned: learned(["zeppelin"], for: "Rate card"))
            #expect(plain == unrelated)
        }
    }

    @Test func learnedWordsNeverChangeTypedCompletion() {
        // Completion searches the index, which holds only the snippets' own text.
        let index = TokenIndex(library: library)
        #expect(index.search("florist").hits.isEmpty)
    }
}
