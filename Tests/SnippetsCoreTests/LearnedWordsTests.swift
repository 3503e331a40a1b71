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

    /// What learning records for `question` when `title` is chosen, as `snippets.learn` records it: the words the
    /// snippet lacks, then the question as taught.
    func lesson(_ question: String, for title: String, in library: SnippetLibrary) -> LearnedWords {
        let snippet = library.snippets.first { $0.title == title }!
        let entries = LearnedWords.wordsToLearn(from: question, for: snippet) + [LearnedWords.questionMark + question]
        return LearnedWords(wordsBySnippet: [snippet.id: entries])
    }

    @Test func aWrongLessonNamesItsSnippetBesideTheOneTheQuestionsOwnWordsFitNeverInItsPlace() async throws {
        // RET on the wrong line of an answer: the footer learns "chase" and "unpaid" from a question its own text
        // does not answer, and the reminder's own words still do.
        let question = "how do I chase a client about an unpaid invoice"
        #expect(try await answer(question).citations.map(\.title) == ["Overdue payment reminder"])
        let slip = lesson(question, for: "Invoice footer", in: library)
        #expect(slip.words(for: library.snippets[0].id) == ["chase", "client", "unpaid"])
        let again = try await answer(question, learned: slip)
        #expect(again.citations.map(\.title) == ["Overdue payment reminder", "Invoice footer"])
    }

    @Test func aTaughtQuestionAskedAgainIsAnsweredWhateverWordsWereRecorded() async throws {
        let bakery = askLibrary([
            ("Allergen statement", "What our products may contain", "All our products are made in a kitchen that handles nuts, gluten and milk."),
            ("Bread order", "Weekly bread order for the bakery", "Please deliver ${1:20} loaves of bread on Monday."),
            ("Sourdough bread", "Our sourdough bread", "Our sourdough bread is baked fresh every morning."),
            ("Bread prices", "Price list for bread", "A loaf of bread costs 3 euros."),
            ("Opening hours", "When the shop is open", "We are open from 8 to 6, Monday to Saturday."),
            ("Holiday closure", "Closed for the holidays", "We are closed over the holidays."),
        ])
        let question = "someone asked if the bread has nuts in it"
        let pipeline = { (learned: LearnedWords) in AskPipeline(library: bakery, learned: learned) }
        #expect(try await pipeline(.none).answer(AskRequest(question: question)).status == .noMatch)
        // Only "bread" is recorded: the statement holds "nuts", and "someone asked" is never learned.
        let taught = lesson(question, for: "Allergen statement", in: bakery)
        #expect(taught.words(for: bakery.snippets[0].id) == ["bread"])
        for repeated in [question, "Someone asked: if the bread has nuts in it?"] {
            let again = try await pipeline(taught).answer(AskRequest(question: repeated))
            #expect(again.status == .answered)
            #expect(again.citations.map(\.title) == ["Allergen statement"])
        }
        // Other questions holding the learned word are not repeats of it.
        #expect(try await pipeline(taught).answer(AskRequest(question: "someone asked if the bread is vegan")).status == .noMatch)
        #expect(try await pipeline(taught).answer(AskRequest(question: "bread prices")).citations.map(\.title) == ["Bread prices"])
    }

    @Test func aTaughtQuestionIsKeptInItsSnippetsArrayAndForgottenByItsWords() throws {
        let question = "someone asked if the bread has nuts in it"
        let bytes = try LearnedWordsFileEdit.adding(["bread"], question: question, file: "bakery.code-snippets", title: "Allergen statement", to: nil)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text == "{\n\t\"bakery.code-snippets\": {\n\t\t\"Allergen statement\": [\"bread\", \"? someone asked if the bread has nuts in it\"]\n\t}\n}\n")
        // Taught again: nothing new (the question compared without case or punctuation).
        #expect(try LearnedWordsFileEdit.adding([], question: "Someone asked if the bread has nuts in it?", file: "bakery.code-snippets", title: "Allergen statement", to: bytes) == bytes)
        // Its question's stems are not learned words: "nuts" is still new.
        let more = try LearnedWordsFileEdit.adding(["nuts"], file: "bakery.code-snippets", title: "Allergen statement", to: bytes)
        #expect(String(decoding: more, as: UTF8.self).contains("[\"bread\", \"? someone asked if the bread has nuts in it\", \"nuts\"]"))
        // Forgetting the lesson (its words and its question) removes the entry, and the file with it.
        let forgotten = try LearnedWordsFileEdit.forgetting(words: ["bread"], questions: [question], file: nil, title: nil, in: bytes)
        #expect(forgotten.removedWords == 1 && forgotten.removedQuestions == 1)
        #expect(String(decoding: forgotten.bytes, as: UTF8.self) == "{\n}\n")
        // Forgetting words keeps the question unless it is named.
        let wordsOnly = try LearnedWordsFileEdit.forgetting(words: ["nuts", "bread"], file: nil, title: nil, in: bytes)
        #expect(wordsOnly.removedQuestions == 0 && String(decoding: wordsOnly.bytes, as: UTF8.self).contains("? someone asked"))
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
