import Foundation
import Testing
@testable import SnippetsCore

/// The per-snapshot caches of asking: an ask over the same snapshot reuses each snippet's evidence and quotable
/// sentences, a quote is still never of text the file no longer holds, and the caches keep no more than their budget.
@Suite struct AskSnapshotCacheTests {
    /// Snippet files whose bytes a test can change while the snapshot stays the same (as between an edit on disk and
    /// the reload it causes).
    final class ChangingSources: SnippetSources, @unchecked Sendable {
        private let lock = NSLock()
        private var files: [String: [UInt8]]
        init(_ files: [String: String]) { self.files = files.mapValues { Array($0.utf8) } }
        func bytes(ofFileAt uri: String) -> [UInt8]? {
            lock.withLock { files[DocumentURI(uri).displayPath] }
        }
        func set(_ path: String, _ text: String) { lock.withLock { files[path] = Array(text.utf8) } }
    }

    static let path = "/lib/café.code-snippets"
    static let text = """
        {
          "Tarif café": {
            "prefix": "tarif",
            "description": "Prix du café pour les clients",
            "body": ["Bonjour ${1:name},", "Café crème: €4,50 la tasse, livraison comprise.", "Merci!"]
          },
          "Adresse Müller": { "prefix": "adr", "body": "Müllerstraße 7\\nBerlin" }
        }
        """
    static let library = LibraryLoader(fileSystem: InMemoryFileSystem(files: [path: text])).load(paths: [path])

    @Test func aRepeatedAskReusesTheSnapshotsWorkAndQuotesTheSame() async throws {
        let sources = ChangingSources([Self.path: Self.text])
        let facts = AskLibraryFacts(library: Self.library)
        let pipeline = AskPipeline(library: Self.library, index: TokenIndex(library: Self.library), facts: facts, sources: sources)
        let first = try await pipeline.answer(AskRequest(question: "how much is a café crème?"))
        #expect(first.citations.first?.quote?.text == "Café crème: €4,50 la tasse, livraison comprise.")
        let kept = facts.caches.keptBytes
        #expect(kept > 0)
        let again = try await pipeline.answer(AskRequest(question: "how much is a café crème?"))
        #expect(again == first)
        #expect(facts.caches.keptBytes == kept, "nothing computed twice")
    }

    @Test func aQuoteIsNeverOfTextTheFileNoLongerHolds() async throws {
        let sources = ChangingSources([Self.path: Self.text])
        let facts = AskLibraryFacts(library: Self.library)
        let pipeline = AskPipeline(library: Self.library, index: TokenIndex(library: Self.library), facts: facts, sources: sources)
        let first = try await pipeline.answer(AskRequest(question: "how much is a café crème?"))
        #expect(first.citations.first?.quote?.text.contains("€4,50") == true)
        // The same length, so the entry's range is unchanged; only its bytes differ.
        sources.set(Self.path, Self.text.replacingOccurrences(of: "€4,50", with: "€5,20"))
        let after = try await pipeline.answer(AskRequest(question: "how much is a café crème?"))
        #expect(after.citations.map(\.title) == ["Tarif café"])
        let changed = Array(Self.text.replacingOccurrences(of: "€4,50", with: "€5,20").utf8)
        for citation in after.citations {
            guard let quote = citation.quote else { continue }
            #expect(!quote.text.contains("€4,50"))
            let range = try #require(QuoteFile(bytes: changed).offset(of: quote.location.range.start))
            #expect(String(decoding: changed[range..<(range + quote.text.utf8.count)], as: UTF8.self) == quote.text)
        }
    }

    @Test func theCachesKeepNoMoreThanTheirBudget() throws {
        let snippet = try #require(Self.library.snippets.first { $0.title == "Tarif café" })
        let none = AskSnapshotCaches(budget: 0)
        let evidence = none.evidence(of: snippet)
        #expect(evidence.trustedBodySentences == SnippetEvidence(snippet).trustedBodySentences)
        #expect(none.quotableSentences(of: snippet, in: QuoteFile(bytes: Array(Self.text.utf8))).count > 0)
        #expect(none.keptBytes == 0)
        let some = AskSnapshotCaches(budget: 1 << 20)
        _ = some.evidence(of: snippet)
        #expect(some.keptBytes > 0 && some.keptBytes <= 1 << 20)
    }
}
