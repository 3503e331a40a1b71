/// Builds answer sentences whose titles come from the snippets themselves, so every name is real and every
/// citation range is exact by construction.
public enum AnswerComposer {
    /// `Your library has "A", "B" and "C".`, with the range of each title (quotes excluded), followed by `note`.
    public static func naming(_ snippets: [(id: String, title: String)], note: String = "") -> DraftAnswer {
        var text = "Your library has "
        var citations: [DraftAnswer.Citation] = []
        for (position, snippet) in snippets.enumerated() {
            if position > 0 { text += position == snippets.count - 1 ? " and " : ", " }
            text += "\""
            let start = text.utf8.count
            text += snippet.title
            citations.append(.init(citedID: snippet.id, title: snippet.title, utf8Range: start..<text.utf8.count))
            text += "\""
        }
        text += "."
        let note = note.trimmingWhitespace()
        if !note.isEmpty { text += " " + note }
        return DraftAnswer(text: text, citations: citations, claimsAnswer: true)
    }

    /// The answer for picked snippets of the library.
    public static func naming(_ snippets: [Snippet], note: String = "") -> DraftAnswer {
        naming(snippets.map { (id: $0.id.rawValue, title: $0.title) }, note: note)
    }

    /// An answer that cites nothing.
    public static func plain(_ text: String) -> DraftAnswer {
        DraftAnswer(text: text, citations: [], claimsAnswer: false)
    }
}
