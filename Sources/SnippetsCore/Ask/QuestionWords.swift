/// A word of the question that carries meaning, with the forms it is searched as.
public struct QuestionWord: Hashable, Sendable {
    /// The token as it appears in the question.
    public var word: String
    /// What it is searched as, barest last: the token, then its base form when irregular (`paid`, `pay`).
    public var forms: [String]
    /// The stem it matches by (`invoices` → `invoic`): a key, not a word to show.
    public var stem: String
    /// Further stems it matches by: library words of its derivational family (`delivery` → `deliv`), or the
    /// stem of the library word it was corrected to (see `WordNeighbourhood`). Empty for a word taken as written.
    public var relatedStems: [String] = []
    /// The library word a mistyped question word was read as (`recieve` → receive); nil when taken as written.
    public var correction: String?

    /// Whether a text with `stems` holds this word (its own stem or a related one).
    public func isMatched(by stems: Set<String>) -> Bool {
        stems.contains(stem) || relatedStems.contains(where: stems.contains)
    }

    public init(word: String, forms: [String], stem: String, isCompound: Bool = false) {
        self.word = word
        self.forms = forms
        self.stem = stem
        self.isCompound = isCompound
    }

    /// Whether `tokens[position]`, without `-` and `_`, is the concatenation of two or more tokens just before it.
    static func isWhole(at position: Int, in tokens: [String]) -> Bool {
        let joined = String(tokens[position].filter { $0 != "-" && $0 != "_" })
        var parts = ""
        var count = 0
        for previous in tokens[..<position].reversed() {
            parts = previous + parts
            count += 1
            if parts.count > joined.count { return false }
            if parts == joined { return count >= 2 }
        }
        return false
    }

    /// Whether the whole-word token of a compound (`auto-reply`, `parsehttpresponse`), which the tokenizer emits
    /// after its parts: searched, but not weighed again on top of its parts.
    public var isCompound: Bool

    /// The content words of `question`: tokens in order, stop words and question-generic words dropped,
    /// duplicates (by stem) dropped.
    public static func words(in question: String) -> [QuestionWord] {
        var seen: Set<String> = []
        var result: [QuestionWord] = []
        let tokens = AskWords.tokens(in: question)
        for (position, token) in tokens.enumerated() where !isIgnorable(token) {
            var forms = AskWords.searchForms(of: token)
            var stem = AskWords.stem(token)
            guard let barest = forms.last, !isIgnorable(barest) else { continue }
            if isNegated(at: position, in: tokens) {
                // "hasn't paid" is about what is unpaid: the word counts only in its negated form, so a snippet
                // about payments received is never named for it. The plain forms are still searched, so such
                // snippets show among the candidates.
                let negatedForms = forms.map { "un" + $0 }
                stem = AskWords.stem(negatedForms[0])
                forms = negatedForms + forms
            }
            guard seen.insert(stem).inserted else { continue }
            result.append(QuestionWord(word: token, forms: forms, stem: stem, isCompound: isWhole(at: position, in: tokens)))
        }
        return result
    }

    /// The tokens of `question` that name something: those of a word capitalised inside a sentence
    /// ("an invoice for Acme"), of an all-capitals word of two letters or more ("my IBAN"), and of quoted text.
    /// The first word of a sentence and "I" are not names.
    public static func namedWords(in question: String) -> Set<String> {
        var named: Set<String> = []
        var sentenceStart = true
        let chunks = question.split(whereSeparator: \.isWhitespace)
        // A question in title case ("How Do I Send An Invoice") names nothing by its capitals.
        let capitalisedChunks = chunks.filter { $0.first(where: \.isLetter)?.isUppercase ?? false }.count
        let titleCase = chunks.count >= 3 && capitalisedChunks * 2 > chunks.count
        // Nor one in capitals ("WHAT IS MY IBAN").
        let capitalChunks = chunks.filter { chunk in
            let letters = chunk.filter(\.isLetter)
            return letters.count >= 2 && letters.allSatisfy(\.isUppercase)
        }.count
        let shouted = chunks.count >= 2 && capitalChunks * 2 > chunks.count
        for chunk in chunks {
            let letters = chunk.filter(\.isLetter)
            let capitalised = chunk.first(where: \.isLetter)?.isUppercase ?? false
            let allCapitals = letters.count >= 2 && letters.allSatisfy(\.isUppercase)
            if (allCapitals && !shouted) || (capitalised && !sentenceStart && !titleCase && letters != "I") {
                named.formUnion(AskWords.tokens(in: String(chunk)))
            }
            if chunk.first(where: { !"\"'“‘(".contains($0) }) != nil { sentenceStart = false }
            if let last = chunk.last(where: { !"\"'”’)".contains($0) }), ".!?:".contains(last) { sentenceStart = true }
        }
        for quoted in AnswerAudit.quotedSpans(in: question) { named.formUnion(AskWords.tokens(in: quoted)) }
        return named
    }

    /// Whether `tokens[position]` is negated: a negating word comes just before it, with at most a few fillers
    /// between ("hasn't paid", "has not yet been paid", "never replied"): `Lexicon.negators`,
    /// `Lexicon.negationFillers`.
    static func isNegated(at position: Int, in tokens: [String]) -> Bool {
        var index = position - 1
        while index >= 0, position - index <= 4 {
            let token = tokens[index]
            if Lexicon.negators.contains(token) { return true }
            guard Lexicon.negationFillers.contains(token) else { return false }
            index -= 1
        }
        return false
    }

    /// Whether a token carries no meaning a snippet could match on: a stop word, a word every question uses
    /// ("how do I say ..."), a word about the library itself ("snippet") (`Lexicon.stopWords`,
    /// `Lexicon.genericWords`), or a lone letter.
    public static func isIgnorable(_ token: String) -> Bool {
        token.count < 2 || Lexicon.stopWords.contains(token) || Lexicon.genericWords.contains(token)
    }
}
