/// Builds answer sentences whose titles come from the snippets themselves, so every name is real and every
/// citation range is exact by construction; quotes come from the snippets' files, as the snippets show them.
public enum AnswerComposer {
    /// One snippet to name: its identifier and exact title, the layer to name when another named snippet has the
    /// same title, and the sentence of it to quote.
    public struct Entry: Hashable, Sendable {
        public var id: String
        public var title: String
        public var layer: String?
        public var quote: QuotableSentence?

        public init(id: String, title: String, layer: String? = nil, quote: QuotableSentence? = nil) {
            self.id = id
            self.title = title
            self.layer = layer
            self.quote = quote
        }
    }

    /// `Your library has "A" (“quote”), "B" and "C" (layer me).`, with the range of each title (quotes
    /// excluded) and of each quote, followed by `note`. Snippets that share a title and layer (the same snippet
    /// in two files) are named once and cite the same range.
    public static func naming(_ entries: [Entry], note: String = "") -> DraftAnswer {
        struct Name: Hashable {
            var title: String
            var layer: String?
        }
        var text = "Your library has "
        var names: [Name] = []
        var first: [Name: Entry] = [:]
        for entry in entries {
            let name = Name(title: entry.title, layer: entry.layer)
            if first[name] == nil {
                names.append(name)
                first[name] = entry
            }
        }
        var titleRange: [Name: Range<Int>] = [:]
        var quoteRange: [Name: Range<Int>] = [:]
        for (position, name) in names.enumerated() {
            if position > 0 { text += position == names.count - 1 ? " and " : ", " }
            text += "\""
            let start = text.utf8.count
            text += name.title
            titleRange[name] = start..<text.utf8.count
            text += "\""
            let quote = first[name]?.quote
            if name.layer != nil || quote != nil {
                text += " ("
                if let layer = name.layer { text += "layer \(layer)" + (quote == nil ? "" : ": ") }
                if let quote {
                    text += "“"
                    let quoteStart = text.utf8.count
                    text += quote.text
                    quoteRange[name] = quoteStart..<text.utf8.count
                    text += "”"
                }
                text += ")"
            }
        }
        text += "."
        var citations: [DraftAnswer.Citation] = []
        var quoted: Set<Name> = []
        for entry in entries {
            let name = Name(title: entry.title, layer: entry.layer)
            var citation = DraftAnswer.Citation(citedID: entry.id, title: entry.title, utf8Range: titleRange[name]!)
            if let quote = entry.quote, let range = quoteRange[name], quoted.insert(name).inserted {
                citation.quote = .init(sentence: quote.index, text: quote.text, utf8Range: range)
            }
            citations.append(citation)
        }
        let note = note.trimmingWhitespace()
        if !note.isEmpty { text += " " + note }
        return DraftAnswer(text: text, citations: citations, claimsAnswer: true)
    }

    /// `Your library has "A", "B" and "C".` for `(id, title)` pairs.
    public static func naming(_ snippets: [(id: String, title: String)], note: String = "") -> DraftAnswer {
        naming(snippets.map { Entry(id: $0.id, title: $0.title) }, note: note)
    }

    /// The answer for picked snippets of the library, each with the sentence to quote (by identifier); a title
    /// two picks of different layers share is named with each layer.
    public static func naming(_ snippets: [Snippet], quotes: [SnippetID: QuotableSentence] = [:], note: String = "") -> DraftAnswer {
        naming(entries(for: snippets, quotes: quotes), note: note)
    }

    /// The entries for `snippets`: the layer named where two of different layers share a title.
    public static func entries(for snippets: [Snippet], quotes: [SnippetID: QuotableSentence] = [:]) -> [Entry] {
        var layersByTitle: [String: Set<String>] = [:]
        for snippet in snippets { layersByTitle[snippet.title, default: []].insert(snippet.layer) }
        return snippets.map { snippet in
            let shared = (layersByTitle[snippet.title]?.count ?? 0) > 1 && !snippet.layer.isEmpty
            return Entry(id: snippet.id.rawValue, title: snippet.title, layer: shared ? snippet.layer : nil, quote: quotes[snippet.id])
        }
    }

    /// An answer that cites nothing.
    public static func plain(_ text: String) -> DraftAnswer {
        DraftAnswer(text: text, citations: [], claimsAnswer: false)
    }
}
