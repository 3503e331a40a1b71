/// The one adapter between asking and the index's word rules: questions and evidence are tokenized and stemmed
/// exactly as the index does it, so a word the index matches is a word the picker counts.
enum AskWords {
    /// Search tokens of `text`, as the index makes them.
    static func tokens(in text: String) -> [String] {
        // PENDING(index): Tokenizer.tokens(in:)
        AskText.words(in: text)
    }

    /// The stem of a lowercase token, irregular forms included (`paid` → `pay`).
    static func stem(_ token: String) -> String {
        // PENDING(index): EnglishStemmer.stem(_:)
        for suffix in ["ing", "ed", "es", "s"] where token.count > suffix.count + 2 && token.hasSuffix(suffix) {
            return String(token.dropLast(suffix.count))
        }
        return token
    }

    /// A token and its stem: what a word may match as.
    static func forms(of token: String) -> [String] {
        let stem = stem(token)
        return stem == token ? [token] : [token, stem]
    }

    /// The plain text of a snippet body: placeholders become their defaults, choices their first option.
    static func plainText(ofBody body: String) -> String {
        // PENDING(grammar): SnippetBody.parse(body).body.plainText()
        var result = ""
        var characters = Array(body)[...]
        while let character = characters.first {
            characters = characters.dropFirst()
            if character == "$", let next = characters.first {
                if next == "{" {
                    characters = characters.dropFirst()
                    while let inner = characters.first, inner.isLetter || inner.isNumber || inner == "_" {
                        characters = characters.dropFirst()
                    }
                    if characters.first == ":" { characters = characters.dropFirst() }
                    continue
                }
                if next.isNumber || next.isLetter {
                    while let inner = characters.first, inner.isLetter || inner.isNumber || inner == "_" {
                        characters = characters.dropFirst()
                    }
                    continue
                }
            }
            if character == "}" { continue }
            result.append(character)
        }
        return result
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

    init(_ snippet: Snippet) {
        self.snippet = snippet
        plainBody = AskWords.plainText(ofBody: snippet.body)
        var instructions: [String] = []
        var trusted: [String] = []
        for sentence in AskText.sentences(in: plainBody) {
            if AskText.isInstruction(sentence) { instructions.append(sentence) } else { trusted.append(sentence) }
        }
        instructionSentences = instructions
        trustedBodySentences = trusted
    }

    /// The text that counts as evidence: title, description, triggers and the trusted body sentences.
    var trustedText: String {
        ([snippet.title, snippet.description ?? ""] + snippet.triggers + trustedBodySentences).joined(separator: "\n")
    }

    /// The body as the model is shown it: instruction-like sentences replaced by a marker.
    var excerptForModel: String {
        guard !instructionSentences.isEmpty else { return plainBody }
        return AskText.sentences(in: plainBody).map {
            AskText.isInstruction($0) ? "[text that reads as instructions was removed]" : $0
        }.joined(separator: "\n")
    }

    /// Every token of the trusted text with its stem.
    var searchForms: Set<String> {
        Set(AskWords.tokens(in: trustedText).flatMap(AskWords.forms(of:)))
    }
}
