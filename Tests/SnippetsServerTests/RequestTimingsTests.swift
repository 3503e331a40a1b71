import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// `snippets/stats` and the bounded per-method timing rings behind it.
struct RequestTimingsTests {
    @Test func statsReportsEachAnsweredRequestByMethod() async throws {
        let client = TestClient(library: TestLibrary([
            makeFile([makeSnippet("Todo comment", triggers: ["todo"], body: "// TODO: $1")]),
        ]))
        try await client.initialize(capabilities: ["textDocument": ["completion": ["completionItem": ["snippetSupport": true]]]])
        client.open("file:///w/a.txt", language: "plaintext", text: "to")
        for _ in 0..<3 { _ = try await client.complete("file:///w/a.txt", line: 0, character: 2) }
        _ = await client.request("no/such/method")

        let stats = try await client.result("snippets/stats").decode(StatsResult.self)
        #expect(stats.window == RequestTimings.window)
        let completion = try #require(stats.methods["textDocument/completion"])
        #expect(completion.count == 3)
        #expect(completion.sampled == 3)
        #expect(completion.p50Ms > 0)
        #expect(completion.p50Ms <= completion.p99Ms && completion.p99Ms <= completion.maxMs)
        #expect(stats.methods["initialize"]?.count == 1)
        #expect(stats.methods["no/such/method"]?.count == 1, "error replies are timed too")
        #expect(stats.methods["snippets/stats"] == nil, "a request is recorded once it is answered")
    }

    @Test func ringKeepsOnlyTheMostRecentWindow() {
        var timings = RequestTimings()
        for _ in 0..<(RequestTimings.window + 10) {
            timings.record("m", receivedAt: RequestTimings.now())
        }
        let figures = timings.report.methods["m"]
        #expect(figures?.count == RequestTimings.window + 10)
        #expect(figures?.sampled == RequestTimings.window)
    }

    @Test func percentilesComeFromTheRecordedTimes() {
        var timings = RequestTimings()
        // Read times in the past by 1..100 ms: the median is about 50 ms, the 99th about 99 ms.
        let now = RequestTimings.now()
        for milliseconds in 1...100 { timings.record("m", receivedAt: now - UInt64(milliseconds) * 1_000_000) }
        let figures = timings.report.methods["m"]!
        #expect((50.0..<52.0).contains(figures.p50Ms))
        #expect((99.0..<101.0).contains(figures.p99Ms))
        #expect((100.0..<102.0).contains(figures.maxMs))
    }
}

/// The line table an open document keeps follows every edit.
struct DocumentLineTableTests {
    @Test func lineTableFollowsEdits() {
        var document = TextDocument(uri: "file:///a", languageID: "plaintext", version: 1, text: "one\ntwo")
        #expect(document.lines.lineCount == 2)
        let change = DidChangeTextDocumentParams.ContentChange(
            range: LSPRange(start: Position(line: 1, character: 3), end: Position(line: 1, character: 3)),
            text: "\r\nthree\nfour")
        document.apply(change, encoding: .utf16)
        #expect(document.text == "one\ntwo\r\nthree\nfour")
        #expect(document.lines.lineStarts == LineTable(document.text).lineStarts)
        #expect(String(document.lines.content(ofLine: 3)) == "four")
        document.text = "x"
        #expect(document.lines.lineCount == 1)
        #expect(String(document.lines.content(ofLine: 0)) == "x")
    }
}

/// Cached insert text is exactly what rendering again gives.
struct RenderedBodiesTests {
    @Test func reusesTextOnlyWhileTheVariablesItUsedKeepTheirValues() {
        let cache = RenderedBodies()
        let plain = makeSnippet("Plain", triggers: ["p"], body: "for ${1:x} in $2")
        let dated = makeSnippet("Dated", triggers: ["d"], body: "© $CURRENT_YEAR ${1:name} $TM_SELECTED_TEXT")
        var asked: [String] = []
        func resolve(year: String) -> (String) -> String? {
            { name in
                asked.append(name)
                return name == "CURRENT_YEAR" ? year : nil
            }
        }
        #expect(cache.insertText(of: plain, engine: .helix, resolving: resolve(year: "2026")) == "for ${1:x} in $2")
        #expect(cache.insertText(of: plain, engine: .plain, resolving: resolve(year: "2026")) == "for x in ")
        #expect(cache.insertText(of: dated, engine: .helix, resolving: resolve(year: "2026")).hasPrefix("© 2026 ${1:name}"))
        asked = []
        #expect(cache.insertText(of: dated, engine: .helix, resolving: resolve(year: "2026")).hasPrefix("© 2026 ${1:name}"))
        #expect(asked == ["CURRENT_YEAR", "TM_SELECTED_TEXT"], "a cached text is checked against the values it used")
        #expect(cache.insertText(of: dated, engine: .helix, resolving: resolve(year: "2027")).hasPrefix("© 2027 ${1:name}"))
        // A rendering for one engine is never handed to another (the `choices` setting can change it mid-session).
        let choice = makeSnippet("Choice", triggers: ["c"], body: "${1|a,b|}")
        #expect(cache.insertText(of: choice, engine: .zed, resolving: resolve(year: "2026")) == "${1|a,b|}")
        #expect(cache.insertText(of: choice, engine: .yasnippet, resolving: resolve(year: "2026")) == "${1:a}")
    }
}
