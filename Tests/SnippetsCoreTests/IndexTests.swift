import Testing
@testable import SnippetsCore

/// Builds a library by hand: one file per scope group, snippets in the given order.
private struct LibraryBuilder {
    var files: [SnippetFile] = []

    mutating func add(
        _ title: String, triggers: [String], description: String? = nil, body: String = "", scopes: [String] = [],
        priority: Int = 0, file: String = "/lib/a.json", extensions: [String: [String]] = [:]
    ) {
        let uri = "file://" + file
        let position = SourcePosition(line: 0, asciiColumn: 0)
        let snippet = Snippet(
            id: SnippetID(fileURI: uri, key: title), title: title, triggers: triggers, description: description,
            body: body, scopes: scopes, priority: priority,
            location: SourceLocation(uri: uri, range: SourceRange(start: position, end: position)), format: .vscode)
        if let index = files.firstIndex(where: { $0.uri == uri }) {
            files[index].snippets.append(snippet)
            files[index].extensions.merge(extensions) { $0 + $1 }
        } else {
            files.append(
                SnippetFile(uri: uri, path: file, format: .vscode, snippets: [snippet], extensions: extensions))
        }
    }

    var index: TokenIndex { TokenIndex(library: SnippetLibrary(files: files)) }
}

/// The titles of the hits for `query`, in rank order.
private func titles(_ index: TokenIndex, _ query: String, language: String? = nil, limit: Int = 20) -> [String] {
    let hits = index.search(query, language: language, limit: limit).hits
    return hits.map { index.library.snippet(withID: $0.snippetID)!.title }
}

private func titles(_ index: TokenIndex, terms: [String], language: String? = nil) -> [String] {
    index.search(terms: terms, language: language).hits.map { index.library.snippet(withID: $0.snippetID)!.title }
}

@Suite struct IndexTests {
    @Test func exactTriggerBeatsPrefixBeatsTitleBeatsBody() {
        var library = LibraryBuilder()
        library.add("Body only", triggers: ["zz"], body: "console.log(x)")
        library.add("Log title", triggers: ["yy"])
        library.add("Longer trigger", triggers: ["logger"])
        library.add("Exact trigger", triggers: ["log"])
        let index = library.index
        #expect(titles(index, "log") == ["Exact trigger", "Longer trigger", "Log title", "Body only"])
        let kinds = index.search("log").hits.map(\.match)
        #expect(kinds == [.exactTrigger, .triggerPrefix, .title, .body])
    }

    @Test func descriptionRanksBetweenTitleAndBody() {
        var library = LibraryBuilder()
        library.add("Body", triggers: ["a1"], body: "invoice")
        library.add("Described", triggers: ["a2"], description: "an invoice")
        library.add("Invoice", triggers: ["a3"])
        let index = library.index
        #expect(titles(index, "invoice") == ["Invoice", "Described", "Body"])
        #expect(index.search("invoice").hits.map(\.match) == [.title, .description, .body])
    }

    @Test func exactCaseBeatsCaseInsensitiveExactMatch() {
        var library = LibraryBuilder()
        library.add("Lower", triggers: ["fn"])
        library.add("Upper", triggers: ["FN"])
        let index = library.index
        #expect(titles(index, "FN") == ["Upper", "Lower"])
        #expect(titles(index, "fn") == ["Lower", "Upper"])
        #expect(index.search("Fn").hits.map(\.match) == [.exactTrigger, .exactTrigger])
    }

    @Test func nonWordQueriesMatchTriggers() {
        var library = LibraryBuilder()
        library.add("Doc comment", triggers: ["///"])
        library.add("Include", triggers: ["#include"])
        library.add("Bang", triggers: ["!"])
        library.add("Other", triggers: ["inc"])
        let index = library.index
        #expect(titles(index, "///") == ["Doc comment"])
        #expect(titles(index, "!") == ["Bang"])
        #expect(titles(index, "#inc") == ["Include", "Other"])
        #expect(index.search("#inc").hits.map(\.match) == [.triggerPrefix, .title])
    }

    @Test func rareWordsCountMoreThanCommonOnes() {
        var library = LibraryBuilder()
        library.add("Common", triggers: ["c1"], body: "return value")
        library.add("Rare", triggers: ["c2"], body: "return invoice")
        for number in 0..<5 { library.add("Filler \(number)", triggers: ["f\(number)"], body: "return value") }
        let index = library.index
        // Both words match in one snippet each way, but "invoice" is in one body and "value" in six.
        #expect(titles(index, "value invoice").first == "Rare")
        let hits = index.search("value invoice").hits
        #expect(hits[0].score > hits[1].score)
        #expect(hits[0].matchedTerms == ["invoice"])
    }

    @Test func lastWordMatchesAsPrefix() {
        var library = LibraryBuilder()
        library.add("Invoice footer", triggers: ["if"])
        library.add("Invoice header", triggers: ["ih"])
        let index = library.index
        #expect(titles(index, "invoice foo") == ["Invoice footer", "Invoice header"])
        // "foo" is not the last word, so it must match a whole token: it matches nothing, "invoice" ties.
        #expect(titles(index, "foo invoice") == ["Invoice footer", "Invoice header"])
        #expect(index.search("foo invoice").hits.map(\.matchedTerms) == [["invoice"], ["invoice"]])
        #expect(titles(index, "foo ") == [])
    }

    @Test func aTypedPrefixWeighsTheSameWhicheverCompletionASnippetHolds() {
        var library = LibraryBuilder()
        library.add("For-Await-Of Loop", triggers: ["forawaitof"])
        library.add("For-Each Loop", triggers: ["foreach"])
        for number in 0..<3 { library.add("Filler \(number)", triggers: ["x\(number)"], body: "for-each item") }
        let index = library.index
        // "for-await-of" is rarer than "for-each", but the typed "for" is one term: the shorter trigger wins the tie.
        #expect(titles(index, "for", limit: 2) == ["For-Each Loop", "For-Await-Of Loop"])
        let hits = index.search("for").hits
        #expect(hits[0].score == hits[1].score)
    }

    @Test func typedIdentifierFindsCompoundToken() {
        var library = LibraryBuilder()
        library.add("Parse", triggers: ["p1"], body: "parseHTTPResponse(data)")
        library.add("Parse only", triggers: ["p2"], body: "parse(data)")
        let index = library.index
        #expect(titles(index, "parseHTTPRes") == ["Parse", "Parse only"])
        #expect(titles(index, "parsehttpresponse").first == "Parse")
    }

    @Test func languageScopingFollowsExtends() {
        var library = LibraryBuilder()
        library.add("C for", triggers: ["for"], scopes: ["c"], file: "/lib/c.snippets")
        library.add(
            "C++ for", triggers: ["for"], scopes: ["cpp"], file: "/lib/cpp.snippets", extensions: ["cpp": ["c"]])
        library.add("Python for", triggers: ["for"], scopes: ["python"], file: "/lib/python.snippets")
        library.add("Global for", triggers: ["for"], file: "/lib/global.json")
        let index = library.index
        #expect(Set(titles(index, "for", language: "cpp")) == ["C for", "C++ for", "Global for"])
        #expect(Set(titles(index, "for", language: "c")) == ["C for", "Global for"])
        #expect(Set(titles(index, "for", language: "rust")) == ["Global for"])
        #expect(titles(index, "for").count == 4)
        #expect(index.search("for", language: "cpp").totalMatches == 3)
    }

    @Test func tiesBreakByPriorityThenShorterTriggerThenTitle() {
        var library = LibraryBuilder()
        library.add("B", triggers: ["forx"])
        library.add("A", triggers: ["forx"])
        library.add("Low", triggers: ["for"], priority: -1)
        library.add("High", triggers: ["for"], priority: 2)
        library.add("Short", triggers: ["fory"])
        library.add("Long", triggers: ["foryyy"])
        let index = library.index
        #expect(titles(index, "for") == ["High", "Low", "A", "B", "Short", "Long"])
        // Same library, built again: same order.
        #expect(titles(library.index, "for") == titles(index, "for"))
    }

    @Test func totalMatchesIsExactSoIncompleteIsTruthful() {
        var library = LibraryBuilder()
        for number in 0..<30 { library.add("Snippet \(number)", triggers: ["log\(number)"]) }
        let index = library.index
        let cut = index.search("log", limit: 5)
        #expect(cut.hits.count == 5)
        #expect(cut.totalMatches == 30)
        #expect(cut.isIncomplete)
        let whole = index.search("log", limit: 50)
        #expect(whole.hits.count == 30)
        #expect(!whole.isIncomplete)
        // log1 and log10...log19 match by trigger and come before the rest.
        #expect(index.search("log1", limit: 11).hits.allSatisfy { $0.match <= .triggerPrefix })
        #expect(index.search("", limit: 5).totalMatches == 0)
    }

    @Test func termsMatchByStem() {
        var library = LibraryBuilder()
        library.add("Payment reminder", triggers: ["rem"], body: "Your payment is overdue.")
        library.add("Paid notice", triggers: ["pn"], body: "We have paid the invoices.")
        library.add("Unrelated", triggers: ["un"], body: "Hello there")
        let index = library.index
        #expect(titles(index, terms: ["payments"]) == ["Payment reminder"])
        #expect(titles(index, terms: ["pay"]) == ["Paid notice"])
        #expect(titles(index, terms: ["invoice"]) == ["Paid notice"])
        let hits = index.search(terms: ["payments", "overdue", "missing"]).hits
        #expect(hits.map(\.matchedTerms) == [["payments", "overdue"]])
        #expect(index.search(terms: ["nothing"]).totalMatches == 0)
    }

    @Test func irregularFormsFindEachOtherWhateverTheirLength() {
        var library = LibraryBuilder()
        library.add("Status", triggers: ["st"], body: "The build is green.")
        library.add("History", triggers: ["hi"], body: "The builds were red.")
        let index = library.index
        #expect(Set(titles(index, terms: ["was"])) == ["Status", "History"])
        #expect(Set(titles(index, terms: ["be"])) == ["Status", "History"])
    }

    @Test func chineseAndCyrillicTextIsSearchable() {
        var library = LibraryBuilder()
        library.add("发票模板", triggers: ["fp"], body: "请在十四天内付款")
        library.add("Счёт-фактура", triggers: ["sf"], body: "Оплата в течение 14 дней")
        let index = library.index
        #expect(titles(index, "发票") == ["发票模板"])
        #expect(titles(index, terms: ["付"]) == ["发票模板"])
        #expect(titles(index, "счёт") == ["Счёт-фактура"])
        #expect(titles(index, "ОПЛА") == ["Счёт-фактура"])
    }

    @Test func termsRankByFieldAndRarity() {
        var library = LibraryBuilder()
        library.add("Address", triggers: ["addr"], body: "Street 1, City")
        library.add("Letter", triggers: ["let"], body: "Dear client, my address is Street 1")
        let index = library.index
        #expect(titles(index, terms: ["address"]) == ["Address", "Letter"])
        #expect(index.search(terms: ["address"]).hits.map(\.match) == [.title, .body])
    }
}

@Suite struct ParallelIndexTests {
    @Test func tokenizingInChunksGivesWhatOnePassGives() {
        let entries = (0..<300).map { number in
            (title: "Snippet \(number) about \(["invoices", "payments", "emails", "contracts"][number % 4])",
             description: "Description \(number % 7) with Ünïcödé and camelCaseWords",
             body: "Body ${1:value\(number % 11)} for tokens_\(number % 13) and \(number)")
        }
        let library = askLibrary(entries)
        let (single, singleOccurrences) = TokenIndex.occurrences(in: library.snippets, chunks: 1)
        for chunks in [2, 3, 7, 16] {
            let (chunked, chunkedOccurrences) = TokenIndex.occurrences(in: library.snippets, chunks: chunks)
            #expect(chunked.count == single.count)
            #expect((0..<single.count).allSatisfy { chunked.texts.string($0) == single.texts.string($0) })
            #expect(chunkedOccurrences == singleOccurrences)
        }
    }
}
