/// What of a snippet is embedded for meaning search, and the key its vector is cached under.
///
/// The title and the description; where there is no description, the body's trusted sentences (never the sentences
/// that read as instructions to an assistant, so a pasted note cannot steer which questions reach it), as plain
/// text, cut at `maximumLength` characters on a word boundary: the opening of a body says what it is about, and the
/// encoder's cost grows with the text.
public enum MeaningText {
    /// The most characters embedded per snippet.
    public static let maximumLength = 200

    /// The text embedded for `snippet`.
    public static func text(of snippet: Snippet) -> String {
        text(of: snippet) { SnippetEvidence(snippet).trustedBodySentences }
    }

    static func text(ofEvidence evidence: SnippetEvidence) -> String {
        text(of: evidence.snippet) { evidence.trustedBodySentences }
    }

    /// The title and description, else the title and `bodySentences()` (asked for only then: reading a body's
    /// sentences is most of the cost of a library's texts).
    private static func text(of snippet: Snippet, bodySentences: () -> [String]) -> String {
        var parts = [snippet.title]
        if let description = snippet.description, !description.isEmpty, description != snippet.title { parts.append(description) }
        // The body only where there is no description: a long body drowns what the title says it is for (measured on
        // examples/library: "hasn't paid" led "Gentle payment reminder" by 0.03 with bodies, 0.10 without).
        if parts.count == 1 { parts += bodySentences() }
        let joined = parts.map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            .filter { !$0.isEmpty }.joined(separator: ". ")
        return cut(joined)
    }

    /// `text` cut to at most `maximumLength` characters, at the last space before the cut when there is one.
    static func cut(_ text: String) -> String {
        guard text.count > maximumLength else { return text }
        let prefix = text.prefix(maximumLength)
        if let space = prefix.lastIndex(of: " ") { return String(prefix[..<space]) }
        return String(prefix)
    }

    /// The cache key of `text`: its SHA-1, hex.
    public static func key(of text: String) -> String {
        SHA1.hex(Array(text.utf8))
    }
}
