/// Whether a question asks for a figure (`QuoteFinder.asksForFigure`) and what unit a question's figure has
/// (`QuestionFigure`).
extension Lexicon {
    /// Two words that open a question for a quantity ("how much", "how long", "at what"), read as adjacent words.
    public static let measureQuestions = LexiconTable("measureQuestions", matching: .word, reason: .measure, [
        "how much", "how many", "how long", "how often", "how soon", "how far", "how big", "how large", "how old",
        "how fast", "how high", "how low", "at what",
    ])

    /// Words for a quantity a snippet states as a figure (a price, a rate, a date): a question holding one asks for
    /// a figure. Matched by stem, so a plural needs no entry of its own, though some are written out.
    public static let figureWords = LexiconTable("figureWords", matching: .word, reason: .figure, [
        "price", "prices", "cost", "costs", "rate", "rates", "fee", "fees", "charge", "amount", "total", "percent",
        "percentage", "number", "sum", "budget", "salary", "discount", "deposit", "tax", "vat", "hours", "days",
        "minimum", "maximum", "limit", "deadline", "when", "date", "threshold", "share",
    ])

    /// Currency signs, read as a figure's unit when written just before it ("£5"); a question holding one asks for
    /// a figure.
    public static let currencySigns = LexiconTable("currencySigns", matching: .text, reason: .currency, [
        "£", "€", "$", "¥",
    ])

    /// `%` written out after a number ("20 percent"), read as the unit `%`.
    public static let percentWords = LexiconTable("percentWords", matching: .text, reason: .percent, [
        "percent", "per cent",
    ])
}
