import Testing
@testable import SnippetsCore

/// Questions in the user's own spelling: typos, derived forms, another language's snippets, a taught question
/// asked again, and questions whose premise the library does not hold.
@Suite struct AskForgivingWordsTests {
    /// Word pairs of one family, which ask matches, and pairs that only look alike, which it must not.
    static let sameFamily: [(String, String)] = [
        ("deliver", "delivery"), ("deliver", "delivering"), ("delivery", "delivered"), ("deliveries", "delivers"),
        ("cancel", "cancellation"), ("cancel", "cancelled"), ("cancelling", "cancellations"), ("canceling", "cancel"),
        ("invoice", "invoicing"), ("invoices", "invoiced"), ("discover", "discovery"), ("recover", "recovery"),
        ("subscribe", "subscription"), ("describe", "description"), ("receive", "receipt"), ("remind", "reminder"),
        ("deploy", "deployment"), ("renew", "renewal"), ("ship", "shipping"), ("register", "registration"), ("administer", "administration"),
        ("vaccinate", "vaccination"), ("neuter", "neutering"), ("escalate", "escalation"),
    ]
    static let onlyLookAlike: [(String, String)] = [
        ("cancel", "cancer"), ("deliver", "liver"), ("invoice", "voice"), ("factor", "factory"), ("batter", "battery"),
        ("car", "card"), ("price", "prince"), ("rate", "irate"), ("form", "format"), ("mail", "email"),
        ("refund", "fund"), ("discount", "count"), ("cover", "cove"), ("every", "ever"), ("receive", "recipe"),
        ("script", "scribe"), ("prescription", "description"), ("register", "regiment"), ("minister", "mist"),
    ]

    @Test(arguments: sameFamily) func derivedFormsShareAFamily(_ pair: (String, String)) {
        #expect(EnglishStemmer.familyKey(pair.0) == EnglishStemmer.familyKey(pair.1), "\(pair)")
    }

    @Test(arguments: onlyLookAlike) func lookAlikesDoNot(_ pair: (String, String)) {
        #expect(EnglishStemmer.familyKey(pair.0) != EnglishStemmer.familyKey(pair.1), "\(pair)")
    }

    static let shop = askLibrary([
        ("Delivery times", "How long delivery takes", "Orders arrive within 3 working days."),
        ("Receive a refund", "What to say when a refund is due", "Your refund arrives within 5 days."),
        ("Cancellation policy", "Terms for cancelling an order", "Orders can be cancelled until they ship."),
        ("Invoice footer", "Footer for outgoing invoices", "Payment is due within 14 days of the invoice date."),
        ("Welcome message", "Greeting for new customers", "Welcome, and thanks for your first order!"),
    ])

    @Test func aMistypedWordIsReadAsTheLibrarysWordAndTheCorrectionIsShown() async throws {
        let result = try await ask("how do I recieve a refund", library: Self.shop)
        #expect(result.citations.map(\.title) == ["Receive a refund"])
        #expect(result.searchTerms.contains("recieve → receive"))
        // Two edits for a long word; one for a short one.
        let long = try await ask("the cancelation polciy", library: Self.shop)
        #expect(long.citations.map(\.title) == ["Cancellation policy"])
        let neighbourhood = WordNeighbourhood(index: TokenIndex(library: Self.shop))
        #expect(neighbourhood.correction(of: "invocie") == "invoice")
        #expect(neighbourhood.correction(of: "footr") == "footer")
        #expect(neighbourhood.correction(of: "fotor") == nil, "two edits in a five-letter word")
        #expect(neighbourhood.correction(of: "xyzzy") == nil)
        #expect(neighbourhood.correction(of: "ref") == nil, "three letters are never corrected")
    }

    /// A short word is corrected by a swapped, left-out or doubled letter, never by a changed or dropped one: those
    /// mostly make another real word, which the person meant ("how long" is not "how log").
    @Test func aShortRealWordIsNotCorrectedIntoALibraryWord() {
        let library = askLibrary([
            ("Log rotation", "Rotate the server log", "Keep seven days."),
            ("Hand-over", "Hand the pager over", "At nine."),
            ("Cancel a job", "Cancel a running job", "Use the jobs page."),
            ("Pack a parcel", "Pack it well", "Use tape."),
        ])
        let neighbourhood = WordNeighbourhood(index: TokenIndex(library: library))
        for (typed, meant) in [("long", "log"), ("hang", "hand"), ("cancer", "cancel"), ("pick", "pack")] {
            #expect(neighbourhood.correction(of: typed) == nil, "\(typed) became \(meant)")
        }
        for (typed, meant) in [("roation", "rotation"), ("cancle", "cancel"), ("jobss", "jobs"), ("pcak", "pack"), ("parcl", "parcel")] {
            #expect(neighbourhood.correction(of: typed) == meant, "\(typed)")
        }
    }

    @Test func typedCompletionNeverCorrects() {
        let index = TokenIndex(library: Self.shop)
        #expect(index.search("recieve").hits.isEmpty)
        #expect(index.search(terms: ["recieve"]).hits.isEmpty)
    }

    @Test func aDerivedFormFindsItsFamily() async throws {
        let result = try await ask("when do you deliver", library: Self.shop)
        #expect(result.citations.map(\.title) == ["Delivery times"])
        let invoicing = try await ask("footer for invoicing", library: Self.shop)
        #expect(invoicing.citations.map(\.title) == ["Invoice footer"])
    }

    static let mixed = askLibrary(
        [("Python main guard", "Entry point of a script", "if __name__ == \"__main__\":\n    main()"),
         ("Markdown table", "A two-column table", "| a | b |\n| - | - |")],
        scopes: ["Python main guard": ["python"], "Markdown table": ["markdown"]])

    @Test func anAskFromAnotherLanguagesDocumentFindsTheSnippetAndSaysSo() async throws {
        let result = try await ask("the main guard entry point", library: Self.mixed, language: "markdown")
        #expect(result.status == .answered)
        #expect(result.citations.map(\.title) == ["Python main guard"])
        #expect(result.answer.contains("python snippets, not markdown"))
        // "Nothing matches" only when nothing in any language does.
        let none = try await ask("sourdough starter", library: Self.mixed, language: "markdown")
        #expect(none.reason?.code == .nothingRetrieved)
        // The document's own language is named first, and alone, when it fits.
        let own = try await ask("a two-column table", library: Self.mixed, language: "markdown")
        #expect(own.citations.map(\.title) == ["Markdown table"])
        #expect(!own.answer.contains("snippets, not"))
    }

    @Test func aTaughtQuestionAskedAgainIsAnsweredWithItsSnippet() async throws {
        let question = "how do I close letters to clients"
        let signature = try #require(freelancerLibrary.snippets.first { $0.title == "Email signature" })
        let words = LearnedWords.wordsToLearn(from: question, for: signature)
        #expect(!words.isEmpty)
        let learned = LearnedWords(wordsBySnippet: [signature.id: words])
        let pipeline = AskPipeline(library: freelancerLibrary, learned: learned)
        let again = try await pipeline.answer(AskRequest(question: question))
        #expect(again.citations.map(\.title) == ["Email signature"])
        // A question that shares only some of the taught words is not taken for it.
        let other = try await pipeline.answer(AskRequest(question: "letters to clients about the rate card"))
        #expect(!other.citations.map(\.title).contains("Email signature"))
    }

    @Test func aFigureNoSnippetHasIsDeclinedAndTheReasonNamesIt() async throws {
        let result = try await ask("what is my 20% discount on the day rate")
        #expect(result.citations.isEmpty)
        #expect(result.status == .noMatch)
        #expect(result.reason?.code == .premiseNotFound)
        #expect(result.reason?.message.contains("\"20%\"") == true)
        // The same question with the library's own figure is answered.
        let real = try await ask("is my day rate 680")
        #expect(real.citations.map(\.title) == ["Rate card"])
    }

    @Test func aNamedThingNoSnippetHasIsDeclined() async throws {
        let result = try await ask("what is the address of my studio in Paris")
        #expect(result.citations.isEmpty)
        #expect(result.reason?.code == .premiseNotFound)
        #expect(result.reason?.message.contains("\"paris\"") == true)
        let london = try await ask("what is the address of my studio in London")
        #expect(london.citations.map(\.title) == ["Studio address London"])
    }

    @Test func betweenEqualCandidatesTheUsersOwnLayerWinsAndTheAnswerNamesLayers() async throws {
        let entry = """
            { "Invoice footer": { "prefix": "foot", "description": "Footer for outgoing invoices", "body": ["BODY"] } }
            """
        // Ties are otherwise broken by identifier, a hash: several file names of the user's make sure the repository's would win some.
        for name in ["a", "b", "c", "d", "e", "f", "g", "h"] {
            let files = [
                "/me/\(name).code-snippets": entry.replacingOccurrences(of: "BODY", with: "Payment is due within 14 days."),
                "/repo/s.code-snippets": entry.replacingOccurrences(of: "BODY", with: "Pay to account 12345678."),
            ]
            let library = LibraryLoader(fileSystem: InMemoryFileSystem(files: files))
                .load(layers: [LibraryLayer(path: "/me", name: "me"), LibraryLayer(path: "/repo", name: "repo")])
            let result = try await AskPipeline(library: library).answer(AskRequest(question: "footer for outgoing invoices"))
            #expect(result.candidates.first.flatMap { library.snippet(withID: $0.snippetID)?.layer } == "me", "\(name)")
            #expect(result.citations.count == 2)
            #expect(result.citations.first.flatMap { library.snippet(withID: $0.snippetID)?.layer } == "me", "\(name)")
            #expect(result.answer.contains("\"Invoice footer\" (layer me)") && result.answer.contains("\"Invoice footer\" (layer repo)"))
        }
    }
}

@Suite struct NamedWordsTests {
    @Test func namesAreCapitalisedInsideASentenceOrInCapitalsOrQuoted() {
        #expect(QuestionWord.namedWords(in: "which snippet has my Tokyo office address?") == ["tokyo"])
        #expect(QuestionWord.namedWords(in: "an invoice for the Acme project. then send it on to Bob") == ["acme", "bob"])
        #expect(QuestionWord.namedWords(in: "what's my IBAN") == ["iban"])
        #expect(QuestionWord.namedWords(in: "the \"blue plan\" price") == ["blue", "plan"])
        #expect(QuestionWord.namedWords(in: "How Do I Send An Invoice").isEmpty, "title case names nothing")
        #expect(QuestionWord.namedWords(in: "WHAT IS MY IBAN").isEmpty, "capitals throughout name nothing")
        #expect(QuestionWord.namedWords(in: "I need the invoice footer").isEmpty)
    }
}
