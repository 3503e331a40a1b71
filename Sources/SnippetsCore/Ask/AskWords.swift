/// The one adapter between asking and the index's word rules: questions and evidence are tokenized and stemmed
/// exactly as the index does it, so a word the index matches is a word the picker counts.
enum AskWords {
    /// Search tokens of `text`, as the index makes them.
    static func tokens(in text: String) -> [String] {
        Tokenizer.tokens(in: text)
    }

    /// The stem of a token, as the index matches it (irregular forms resolved: `paid` → `pay`).
    static func stem(_ token: String) -> String {
        EnglishStemmer.stem(token)
    }

    /// What a token is searched as: itself, then its base form when it is an irregular inflection (`paid`, `pay`).
    /// Regular inflections need no second form: the index matches every token of the same stem.
    static func searchForms(of token: String) -> [String] {
        guard let base = EnglishStemmer.irregularForms[token], base != token else { return [token] }
        return [token, base]
    }

    /// The plain text of a snippet body: placeholders become their defaults, choices their first option,
    /// variables their defaults (never their values: evidence must not depend on the clock or the clipboard).
    static func plainText(ofBody body: String) -> String {
        SnippetBody.parse(body).body.plainText()
    }
}

/// A snippet read as evidence: its trusted text (title, description, triggers and body without instruction-like
/// sentences) and the instruction-like sentences kept apart, so they are never evidence and never echoed.
struct SnippetEvidence: Sendable {
    let snippet: Snippet
    /// The body as plain text.
    let plainBody: String
    /// Body sentences that read as instructions to an assistant.
    let instructionSentences: [String]
    /// Body sentences that do not.
    let trustedBodySentences: [String]
    /// Stems the user taught for this snippet that count for this question (see `LearnedWords`): counted like
    /// the description, never shown to a model and never evidence for numbers.
    var learnedStems: Set<String> = []

    init(_ snippet: Snippet) {
        self.snippet = snippet
        plainBody = AskWords.plainText(ofBody: snippet.body)
        var instructions: [String] = []
        var trusted: [String] = []
        for (sentence, isInstruction) in AskText.sentencesMarkingInstructions(in: plainBody) {
            if isInstruction { instructions.append(sentence) } else { trusted.append(sentence) }
        }
        instructionSentences = instructions
        trustedBodySentences = trusted
        ownStems = Set(AskWords.tokens(in: ([snippet.title, snippet.description ?? ""] + snippet.triggers + trusted).joined(separator: "\n"))
            .map(AskWords.stem)).union(snippet.scopes.map { $0.lowercased() })
    }

    /// The text that counts as evidence: title, description, triggers and the trusted body sentences.
    var trustedText: String {
        ([snippet.title, snippet.description ?? ""] + snippet.triggers + trustedBodySentences).joined(separator: "\n")
    }

    /// The stems a snippet is about: those of its trusted text, plus its language scopes (a `python` snippet is
    /// about Python even when its text never says so).
    var stems: Set<String> {
        learnedStems.isEmpty ? ownStems : ownStems.union(learnedStems)
    }

    /// The stems of the snippet's own text (`trustedText`) and scopes, without learned ones: computed once.
    let ownStems: Set<String>

    /// The sentences a quote may be chosen from: the description, then the trusted body sentences, as written.
    var quotableSentences: [String] {
        ([snippet.description].compactMap { $0 }.filter { !$0.isEmpty }) + trustedBodySentences
    }

    /// The body as the model is shown it: instruction-like sentences replaced by a marker.
    var excerptForModel: String {
        guard !instructionSentences.isEmpty else { return plainBody }
        return AskText.sentencesMarkingInstructions(in: plainBody).map {
            $0.isInstruction ? "[text that reads as instructions was removed]" : $0.sentence
        }.joined(separator: "\n")
    }

}
