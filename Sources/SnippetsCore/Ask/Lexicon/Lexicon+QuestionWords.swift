/// Which words of a question count (`QuestionWord.words(in:)`), which are negated, and which name a snippet's form.
extension Lexicon {
    /// Words that carry no meaning a snippet could match on: never question words (`QuestionWord.isIgnorable`).
    /// Completion also offers only triggers for them, since prose is made of them (`CompletionBuilder`).
    public static let stopWords = LexiconTable("stopWords", matching: .token, [
        .function: [
            "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at",
            "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did",
            "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have",
            "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into",
            "is", "it", "its", "itself", "just", "me", "more", "most", "much", "my", "myself", "no", "nor", "not",
            "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own",
            "per", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them",
            "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until",
            "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
            "with", "would", "you", "your", "yours", "yourself", "also", "many",
        ],
        .contraction: [
            "hasn", "isn", "wasn", "won", "don", "doesn", "didn", "ll", "re", "ve", "s", "t", "d", "m", "im", "whats",
            "lets",
        ],
        .questionFrame: ["got", "let"],
        .courtesy: ["ok", "please"],
        .placeholder: ["thing", "things", "something", "someone", "anything", "everything"],
    ])

    /// Words a question about one's own snippets uses whatever it is about: never question words
    /// (`QuestionWord.isIgnorable`).
    public static let genericWords = LexiconTable("genericWords", matching: .token, [
        .library: ["snippet", "snippets", "library", "libraries", "stored", "store", "saved", "save"],
        .questionFrame: [
            "say", "tell", "use", "used", "using", "need", "want", "wants", "get", "go", "goes", "going", "make",
            "find", "show", "give", "gives", "know", "look", "put", "write", "send", "help", "keep", "there", "have",
        ],
        .placeholder: ["kind", "way", "one", "ones"],
    ])

    /// Words naming the form a snippet takes ("what's the command for ...", "which email do I send ..."): they help
    /// find it, but a snippet that does not call itself a command is still one, so a form word no candidate holds is
    /// never the missing premise of a question (`AskPipeline.unfoundPremise`).
    public static let formWords = LexiconTable("formWords", matching: .token, reason: .form, [
        "command", "commands", "query", "queries", "template", "templates", "message", "messages", "text", "texts",
        "email", "emails", "mail", "reply", "replies", "response", "responses", "note", "notes", "letter", "letters",
        "script", "scripts", "code", "function", "functions", "example", "examples", "wording", "phrase", "line",
        "lines", "paragraph", "boilerplate", "shortcut", "macro",
    ])

    /// Words that negate the word after them (`QuestionWord.isNegated`): "hasn't paid" is about what is unpaid.
    /// Contractions arrive split by the tokenizer: `hasn't` is `hasn`, `t`.
    public static let negators = LexiconTable("negators", matching: .token, reason: .negation, [
        "not", "never", "cannot", "hasn", "haven", "hadn", "didn", "doesn", "don", "isn", "wasn", "weren", "aren",
        "won", "wouldn", "couldn", "shouldn",
    ])

    /// Words that may stand between a negator and the word it negates ("has not yet been paid"); `t` is the rest
    /// of a split contraction. Never learned either (`LearnedWords.wordsToLearn`).
    public static let negationFillers = LexiconTable("negationFillers", matching: .token, reason: .negationFiller, [
        "t", "yet", "been", "be", "ever", "even", "really", "still",
    ])
}
