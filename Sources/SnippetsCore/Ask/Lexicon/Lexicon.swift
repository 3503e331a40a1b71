/// The lexicon: every hand-kept English word list the ask pipeline decides by, one named table each, every entry with
/// the reason it is there.
///
/// Asking without a model decides from shared words alone, so these lists steer every answer: which words of a
/// question count, which are negated, which ask for a figure, which sentences read as orders to an assistant.
/// Kept in one place, each list can be read whole and each entry questioned.
///
/// **Invariant:** a word list the ask pipeline reads is a table here, listed in `Lexicon.tables`; its consumers read
/// the table (or a view derived from it once, such as its stems), never a copy of their own.
///
/// **Invariant:** every entry has a reason class (`LexiconReason`): why a word of that kind belongs in the list, true
/// of any library and any question. No entry is added to fix one probe.
///
/// **Invariant:** an entry is written as its consumer meets it (`LexiconTable.Matching`): a token as `AskWords.tokens`
/// makes it, a word as `AskText.words` makes it, lowercase text as found in lowercased text; unique within its table.
///
/// **Invariant:** `LexiconTests` fixes every table's size and the relations between tables the pipeline relies on
/// (form words are never ignorable, fillers never negate, ...), so growing a list is a visible, reviewed change.
public enum Lexicon {
    /// Every table of the lexicon.
    public static let tables: [LexiconTable] = [
        stopWords, genericWords, formWords, negators, negationFillers,
        measureQuestions, figureWords, currencySigns, percentWords,
        roleLabels, instructionMarkers, chatTemplateTokens,
        commonWords,
        offTopicQuestions, absentTopics,
    ]
}

/// Why an entry is in its table: a class of word, not a question it once fixed.
public enum LexiconReason: String, CaseIterable, Hashable, Sendable {
    case function
    case contraction
    case courtesy
    case placeholder
    case questionFrame
    case library
    case form
    case negation
    case negationFiller
    case measure
    case figure
    case currency
    case percent
    case chatRole
    case order
    case addressesReader
    case assignsRole
    case namesAssistant
    case chatTemplate
    case time
    case degree
    case offTopic

    /// The reason in words.
    public var explanation: String {
        switch self {
        case .function: "a function word that names nothing"
        case .contraction: "a contraction, or what the tokenizer leaves of one (don't → don, t)"
        case .courtesy: "politeness or an interjection, said whatever is asked"
        case .placeholder: "stands for something without naming it"
        case .questionFrame: "how people frame a request, not what it is about"
        case .library: "names the library or the keeping of snippets, which every snippet shares"
        case .form: "names the form a snippet takes (a command, an email), not what it is about"
        case .negation: "negates the word after it"
        case .negationFiller: "may stand between a negator and the word it negates"
        case .measure: "opens a question for a quantity"
        case .figure: "names a quantity a snippet would state as a figure"
        case .currency: "a currency sign, the unit of the amount written after it"
        case .percent: "the unit % written out"
        case .chatRole: "labels a turn of a chat transcript"
        case .order: "orders a reader to drop, replace or obey instructions"
        case .addressesReader: "addresses whoever reads the text, not the person it was written for"
        case .assignsRole: "gives the reader a role to play"
        case .namesAssistant: "speaks of or to an AI assistant"
        case .chatTemplate: "a chat-template token, meaningless to a person"
        case .time: "says when or how often, not what"
        case .degree: "says how much, how sure or how good, not what"
        case .offTopic: "a topic no personal snippet library is likely to hold"
        }
    }
}

/// One entry of a table: its text and why it is there.
public struct LexiconEntry: Hashable, Sendable {
    /// The word, phrase or sign, written as the table's consumer meets it.
    public var text: String
    public var reason: LexiconReason
}

/// A named word list of the lexicon, in the order written.
public struct LexiconTable: Sendable {
    /// How a table's consumer meets its entries, which decides how an entry must be written.
    public enum Matching: Hashable, Sendable {
        /// Compared with the tokens `AskWords.tokens` makes (lowercase, split at punctuation and case changes).
        case token
        /// Compared with the words `AskText.words` makes (lowercase runs of letters and digits); an entry of several
        /// words, separated by one space, is a run of such words.
        case word
        /// Found as written in text the consumer lowercases: a sign, a prefix, a substring.
        case text
        /// Asked whole, as a person would write the question or topic.
        case question
    }

    /// The name its consumers know it by (`Lexicon.<name>`).
    public let name: String
    public let matching: Matching
    public let entries: [LexiconEntry]
    /// The entries' texts, in order.
    public let texts: [String]
    private let members: Set<String>

    /// A table whose entries share one reason, stated once.
    init(_ name: String, matching: Matching, reason: LexiconReason, _ texts: [String]) {
        self.init(name, matching: matching, entries: texts.map { LexiconEntry(text: $0, reason: reason) })
    }

    /// A table whose entries are grouped by reason.
    init(_ name: String, matching: Matching, _ groups: KeyValuePairs<LexiconReason, [String]>) {
        self.init(name, matching: matching, entries: groups.flatMap { group in
            group.value.map { LexiconEntry(text: $0, reason: group.key) }
        })
    }

    private init(_ name: String, matching: Matching, entries: [LexiconEntry]) {
        self.name = name
        self.matching = matching
        self.entries = entries
        texts = entries.map(\.text)
        members = Set(texts)
    }

    /// Whether `text` is an entry.
    public func contains(_ text: String) -> Bool {
        members.contains(text)
    }
}
