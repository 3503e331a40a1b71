/// Builds answer sentences whose titles come from the snippets themselves, so every name is real and every
/// citation range is exact by construction.
public enum AnswerComposer {
    /// `Your library has "A", "B" and "C".`, with the range of each title (quotes excluded), followed by `note`.
    /// Snippets that share a title (the same snippet in two files) are named once and cite the same range.
    public static func naming(_ snippets: [(id: String, title: String)], note: String = "") -> DraftAnswer {
        var text = "Your library has "
        var citations: [DraftAnswer.Citation] = []
        var rangeByTitle: [String: Range<Int>] = [:]
        var titles: [String] = []
        for snippet in snippets where !titles.contains(snippet.title) { titles.append(snippet.title) }
        for (position, title) in titles.enumerated() {
            if position > 0 { text += position == titles.count - 1 ? " and " : ", " }
            text += "\""
            let start = text.utf8.count
            text += title
            rangeByTitle[title] = start..<text.utf8.count
            text += "\""
        }
        for snippet in snippets {
            citations.append(.init(citedID: snippet.id, title: snippet.title, utf8Range: rangeByTitle[snippet.title]!))
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
