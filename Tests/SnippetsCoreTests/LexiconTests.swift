import Testing
@testable import SnippetsCore

/// The lexicon's tables (`Lexicon`): why each entry is there, how it is written, how the tables relate, and how many
/// entries each has.
///
/// Adding an entry to a table needs a reason class that fits it and a rationale that holds for any library and any
/// question, never "probe so-and-so failed": change the table's count in `sizes` and its reasons in `reasons` in the
/// same commit, and say why in the commit message.
@Suite struct LexiconTests {
    /// Each table's size: growing or shrinking a list is a visible, reviewed change.
    static let sizes: [String: Int] = [
        "stopWords": 156, "genericWords": 38, "formWords": 36, "negators": 17, "negationFillers": 8,
        "measureQuestions": 13, "figureWords": 31, "currencySigns": 4, "percentWords": 2,
        "roleLabels": 7, "instructionMarkers": 39, "chatTemplateTokens": 5,
        "commonWords": 92,
        "offTopicQuestions": 24, "absentTopics": 18,
    ]

    /// The reason classes each table admits: what kinds of word belong in it.
    static let reasons: [String: Set<LexiconReason>] = [
        "stopWords": [.function, .contraction, .questionFrame, .courtesy, .placeholder],
        "genericWords": [.library, .questionFrame, .placeholder],
        "formWords": [.form],
        "negators": [.negation],
        "negationFillers": [.negationFiller],
        "measureQuestions": [.measure],
        "figureWords": [.figure],
        "currencySigns": [.currency],
        "percentWords": [.percent],
        "roleLabels": [.chatRole],
        "instructionMarkers": [.order, .addressesReader, .assignsRole, .namesAssistant],
        "chatTemplateTokens": [.chatTemplate],
        "commonWords": [.time, .degree, .placeholder, .questionFrame, .courtesy],
        "offTopicQuestions": [.offTopic],
        "absentTopics": [.offTopic],
    ]

    // MARK: (d) sizes

    @Test(arguments: Lexicon.tables)
    func sizeIsReviewed(_ table: LexiconTable) {
        #expect(
            table.entries.count == Self.sizes[table.name],
            """
            \(table.name) has \(table.entries.count) entries: an entry needs a reason class and a rationale that holds \
            for any library and any question (never one probe); update LexiconTests.sizes in the same commit
            """)
    }

    @Test func everyTableIsNamedOnceAndCounted() {
        let names = Lexicon.tables.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(Set(names) == Set(Self.sizes.keys))
        #expect(Set(names) == Set(Self.reasons.keys))
    }

    // MARK: (a) reasons

    @Test(arguments: Lexicon.tables)
    func everyEntryHasAReasonItsTableAdmits(_ table: LexiconTable) {
        let admitted = Self.reasons[table.name] ?? []
        for entry in table.entries {
            #expect(admitted.contains(entry.reason), "\(table.name): \"\(entry.text)\" is there as \(entry.reason)")
        }
        // A reason the table admits but no entry has is a stale line of `reasons`.
        #expect(Set(table.entries.map(\.reason)) == admitted, "\(table.name)")
    }

    @Test func everyReasonIsExplainedOnceAndUsed() {
        let explanations = LexiconReason.allCases.map(\.explanation)
        #expect(explanations.allSatisfy { !$0.isEmpty })
        #expect(Set(explanations).count == explanations.count)
        let used = Set(Lexicon.tables.flatMap { $0.entries.map(\.reason) })
        #expect(used == Set(LexiconReason.allCases))
    }

    // MARK: (b) how entries are written

    @Test(arguments: Lexicon.tables)
    func entriesAreUniqueAndWrittenAsTheirConsumerMeetsThem(_ table: LexiconTable) {
        #expect(Set(table.texts).count == table.texts.count, "\(table.name) repeats an entry")
        for text in table.texts {
            #expect(!text.isEmpty && text == text.trimmingWhitespace(), "\(table.name): \"\(text)\"")
            switch table.matching {
            case .token:
                // Lowercase and one token: anything else is never equal to a token of a question.
                #expect(AskWords.tokens(in: text) == [text], "\(table.name): \"\(text)\" is not one token")
            case .word:
                #expect(
                    AskText.words(in: text) == text.split(separator: " ").map(String.init),
                    "\(table.name): \"\(text)\" is not lowercase words separated by single spaces")
            case .text:
                #expect(text == text.lowercased(), "\(table.name): \"\(text)\" is looked for in lowercased text")
            case .question:
                // Lowercase words as a person types them, "I" aside; no punctuation.
                #expect(
                    text.split(separator: " ").allSatisfy { $0 == "I" || $0 == $0.lowercased() }
                        && AskText.words(in: text).joined(separator: " ") == text.lowercased(),
                    "\(table.name): \"\(text)\"")
            }
        }
    }

    // MARK: (c) relations the pipeline relies on

    /// A form word matters only as a question word (`AskPipeline.unfoundPremise`); one that is also ignorable would
    /// never be reached.
    @Test func formWordsAreQuestionWords() {
        for word in Lexicon.formWords.texts {
            #expect(!QuestionWord.isIgnorable(word), "\(word)")
            #expect(QuestionWord.words(in: "the \(word) for refunds").map(\.word).contains(word), "\(word)")
        }
    }

    /// A filler only carries a negation across; it never negates by itself.
    @Test func fillersNeverNegate() {
        #expect(Set(Lexicon.negators.texts).isDisjoint(with: Lexicon.negationFillers.texts))
        #expect(QuestionWord.words(in: "the invoice still paid").map(\.forms).last == ["paid", "pay"])
    }

    /// Every negator negates the word after it, as written (`hasn't` arrives as `hasn`, `t`, so `t` must be a
    /// filler), and carries across every filler.
    @Test(arguments: Lexicon.negators.texts)
    func everyNegatorNegatesAcrossFillers(_ negator: String) {
        let written = negator.hasSuffix("n") ? negator + "'t" : negator
        #expect(QuestionWord.words(in: "the invoice \(written) paid").map(\.forms).last == ["unpaid", "unpay", "paid", "pay"])
        for filler in Lexicon.negationFillers.texts where filler != "t" {
            #expect(
                QuestionWord.words(in: "the invoice \(written) \(filler) paid").map(\.forms).last
                    == ["unpaid", "unpay", "paid", "pay"],
                "\(written) \(filler) paid")
        }
    }

    /// Where the tables of single words overlap. Ignorable is the union of stop and generic words, so an overlap there is
    /// redundant, not wrong; a negator or filler is read as a raw token whether or not it is ignorable; common and
    /// figure words are matched by stem in their own steps. A new overlap is a word put in a second list: say why.
    /// (Nine negators — never, cannot, haven, hadn, weren, aren, wouldn, couldn, shouldn — are in no ignorable table,
    /// so they are also searched as question words.)
    @Test func wordTablesOverlapOnlyWhereListed() {
        let tables = [
            Lexicon.stopWords, Lexicon.genericWords, Lexicon.formWords, Lexicon.negators, Lexicon.negationFillers,
            Lexicon.commonWords, Lexicon.figureWords, Lexicon.roleLabels,
        ]
        let expected: [String: Set<String>] = [
            "stopWords & genericWords": ["have", "there"],
            "stopWords & negators": ["didn", "doesn", "don", "hasn", "isn", "not", "wasn", "won"],
            "stopWords & negationFillers": ["be", "been", "t"],
            "stopWords & commonWords": ["again", "someone", "thing"],
            "stopWords & figureWords": ["when"],
            "genericWords & commonWords": ["kind", "way"],
            "negationFillers & commonWords": ["really"],
            "commonWords & figureWords": ["date"],
        ]
        var found: [String: Set<String>] = [:]
        for (position, first) in tables.enumerated() {
            for second in tables[(position + 1)...] {
                let shared = Set(first.texts).intersection(second.texts)
                if !shared.isEmpty { found["\(first.name) & \(second.name)"] = shared }
            }
        }
        #expect(found == expected)
    }

    /// The check reads a question's adjacent words in pairs.
    @Test(arguments: Lexicon.measureQuestions.texts)
    func everyMeasureQuestionIsTwoWordsAndAsksForAFigure(_ phrase: String) {
        #expect(phrase.split(separator: " ").count == 2)
        #expect(QuoteFinder.asksForFigure("\(phrase) is the trip?"))
    }

    @Test(arguments: Lexicon.figureWords.texts)
    func everyFigureWordAsksForAFigure(_ word: String) {
        #expect(QuoteFinder.asksForFigure("what is the \(word) for the trip?"))
    }

    /// A sign is one character, read just before a number; a question holding one asks for a figure.
    @Test(arguments: Lexicon.currencySigns.texts)
    func everyCurrencySignIsAFiguresUnit(_ sign: String) {
        #expect(sign.count == 1)
        #expect(QuestionFigure.figures(in: "it costs \(sign)5").map(\.written) == [sign + "5"])
        #expect(QuoteFinder.asksForFigure("is it \(sign)5?"))
    }

    @Test(arguments: Lexicon.percentWords.texts)
    func everyPercentWordIsTheUnitPercent(_ words: String) {
        #expect(QuestionFigure.figures(in: "it loses 20 \(words) a year").map(\.written) == ["20%"])
    }

    /// A role label in capitals, alone before a colon, opens a chat turn; the same word in other case is evidence.
    @Test(arguments: Lexicon.roleLabels.texts)
    func everyRoleLabelOpensATurnInCapitalsOnly(_ label: String) {
        #expect(AskText.isRoleLabel(label.uppercased() + ":"))
        #expect(!AskText.isRoleLabel(label.prefix(1).uppercased() + label.dropFirst() + ": Ubuntu 22.04"))
    }

    @Test(arguments: Lexicon.instructionMarkers.texts)
    func everyInstructionMarkerMarksASentence(_ marker: String) {
        #expect(AskText.isInstruction("Note: \(marker) here."))
    }

    @Test(arguments: Lexicon.chatTemplateTokens.texts)
    func everyChatTemplateTokenMarksASentenceInAnyCase(_ token: String) {
        #expect(AskText.isInstruction("before \(token.uppercased()) after"))
    }

    /// An off-topic question is used only for a library none of whose snippets holds its words: one with no word to
    /// look for would be used everywhere (calibration) or never (qualification).
    @Test(arguments: Lexicon.offTopicQuestions.texts + Lexicon.absentTopics.texts)
    func everyOffTopicQuestionHasWordsToLookFor(_ question: String) {
        #expect(!QuestionWord.words(in: question).isEmpty)
    }
}

extension LexiconTable: CustomTestStringConvertible {
    public var testDescription: String { name }
}
