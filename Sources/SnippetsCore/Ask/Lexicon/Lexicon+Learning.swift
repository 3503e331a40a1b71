/// Which words of a question are learned for a snippet (`LearnedWords.wordsToLearn`).
extension Lexicon {
    /// Everyday words that say when, how much or how things went rather than what a question is about ("next
    /// year", "a quick question"): never learned, by stem, so a later question sharing only them is not taken for
    /// the learned one. (Stop words and generic words are already dropped as question words.)
    public static let commonWords = LexiconTable("commonWords", matching: .token, [
        .time: [
            "next", "last", "year", "month", "week", "day", "today", "tonight", "tomorrow", "yesterday", "morning",
            "evening", "night", "time", "date", "start", "starting", "begin", "end", "again", "soon", "later", "ago",
            "already", "every", "always", "often", "usually", "sometimes", "first", "second", "third",
        ],
        .degree: [
            "new", "old", "good", "bad", "big", "small", "little", "lot", "lots", "really", "quite", "maybe", "perhaps",
            "probably", "actually", "basically", "quick", "quickly", "best", "better", "long", "short", "great", "nice",
            "fine", "right",
        ],
        .placeholder: [
            "stuff", "people", "person", "guy", "way", "thing", "kind", "sort", "type", "bit", "part", "place",
            "someone", "anyone", "everyone", "somebody", "anybody",
        ],
        .questionFrame: ["like", "back", "happen", "come", "take", "ask", "answer", "question"],
        .courtesy: ["oops", "hey", "hi", "hello", "thanks", "thank", "okay", "sure", "yes"],
    ])
}
