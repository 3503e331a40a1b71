// API surface agreed between targets; the index work fills in the implementation.

/// A literal token index over a library's triggers, titles, descriptions and bodies.
public struct TokenIndex: Sendable {
    public let library: SnippetLibrary

    public init(library: SnippetLibrary) {
        self.library = library
        fatalError("TokenIndex is not implemented yet")
    }

    /// Ranked snippets for `query` as a person types it (a trigger being typed, or words).
    /// `language` nil searches every snippet; otherwise the language's snippets plus global ones.
    public func search(_ query: String, language: String? = nil, limit: Int = 20) -> SearchResults {
        fatalError("TokenIndex.search is not implemented yet")
    }

    /// Ranked snippets matching any of `terms` (already tokens: lowercase words), best first.
    public func search(terms: [String], language: String? = nil, limit: Int = 20) -> SearchResults {
        fatalError("TokenIndex.search(terms:) is not implemented yet")
    }
}

/// Hits in rank order, and whether more matched than were returned.
public struct SearchResults: Hashable, Sendable {
    public var hits: [SearchHit]
    /// How many snippets matched before the limit was applied.
    public var totalMatches: Int

    public init(hits: [SearchHit], totalMatches: Int) {
        self.hits = hits
        self.totalMatches = totalMatches
    }

    /// Whether the list was cut at the limit.
    public var isIncomplete: Bool { totalMatches > hits.count }
}

/// One ranked snippet, with why it matched.
public struct SearchHit: Hashable, Sendable {
    public var snippetID: SnippetID
    public var score: Double
    /// The strongest way the snippet matched.
    public var match: MatchKind
    /// The query terms this snippet matched.
    public var matchedTerms: [String]

    public init(snippetID: SnippetID, score: Double, match: MatchKind, matchedTerms: [String]) {
        self.snippetID = snippetID
        self.score = score
        self.match = match
        self.matchedTerms = matchedTerms
    }
}

/// How a snippet matched, strongest first.
public enum MatchKind: Int, Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    case exactTrigger = 0
    case triggerPrefix
    case title
    case description
    case body

    public static func < (lhs: MatchKind, rhs: MatchKind) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .exactTrigger: "exact trigger"
        case .triggerPrefix: "trigger prefix"
        case .title: "title"
        case .description: "description"
        case .body: "body"
        }
    }
}
