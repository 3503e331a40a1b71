import Foundation
import SnippetsCore

/// The benchmark's queries: drawn from the library with a fixed-seed generator so every run searches the same.
enum BenchQueries {
    struct Query {
        var text: String
        var language: String?
    }

    /// Questions a person might ask, made from random titles of the library (some words left out, some added),
    /// with a fixed seed.
    static func questions(from library: SnippetLibrary, count: Int) -> [String] {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(bound, 1)))
        }
        let openings = ["how do I", "where is my", "what do I send for", "is there a snippet for", "show me the"]
        let snippets = library.snippets
        guard !snippets.isEmpty else { return [] }
        return (0..<count).map { _ in
            var words = snippets[next(snippets.count)].title.lowercased().split(separator: " ").map(String.init)
            if words.count > 2 { words.remove(at: next(words.count)) }
            return openings[next(openings.count)] + " " + words.joined(separator: " ") + "?"
        }
    }

    static func make(from library: SnippetLibrary, count: Int) -> [Query] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(bound, 1)))
        }
        let snippets = library.snippets
        var queries: [Query] = []
        queries.reserveCapacity(count)
        while queries.count < count {
            let snippet = snippets[next(snippets.count)]
            let language = snippet.scopes.first
            if queries.count % 2 == 0, let trigger = snippet.triggers.first, !trigger.isEmpty {
                let length = 1 + next(trigger.count)
                queries.append(Query(text: String(trigger.prefix(length)), language: language))
            } else {
                let words = Tokenizer.tokens(in: snippet.title)
                guard !words.isEmpty else { continue }
                queries.append(Query(text: words[next(words.count)], language: language))
            }
        }
        return queries
    }
}
