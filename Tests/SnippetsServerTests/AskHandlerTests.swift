import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

private let askLibrary = TestLibrary([
    makeFile([
        makeSnippet("Café menu", triggers: ["menu"], body: "Espresso 2.50, flat white 3.20", description: "Prices at the café", line: 1),
        makeSnippet("Swift guard let", triggers: ["guardlet"], body: "guard let ${1:x} else { return }", scopes: ["swift"], description: "Unwrap an optional", line: 6),
        makeSnippet("Python guard clause", triggers: ["guard"], body: "if not ${1:x}:\n    return", scopes: ["python"], description: "Leave early", line: 11),
    ]),
])

/// `snippets/ask` through the real server over an in-memory pipe.
@Suite struct AskHandlerTests {
    let schema = try! JSONSchemaValidator.load("snippets-ask.result.schema.json")

    @Test func answersWithRangesInTheNegotiatedEncoding() async throws {
        for (encodings, expected) in [([String](), 18..<27), (["utf-8"], 18..<28), (["utf-32"], 18..<27)] {
            let client = TestClient(library: askLibrary)
            var capabilities: [String: JSONValue] = [:]
            if !encodings.isEmpty { capabilities["general"] = ["positionEncodings": .array(encodings.map { .string($0) })] }
            let initialized = try await client.initialize(capabilities: .object(capabilities))
            #expect(initialized["capabilities"]?["experimental"]?["snippetsAsk"] == true)
            let json = try await client.result("snippets/ask", ["question": "what is on the café menu?"])
            #expect(schema.violations(of: json) == [])
            let result = try json.decode(AskResponse.self)
            #expect(result.status == "answered")
            #expect(result.answer == "Your library has \"Café menu\".")
            let range = try #require(result.citations.first?.answerRange)
            #expect(range.start..<range.end == expected, "\(encodings)")
            #expect(result.citations.first?.location.range.start.line == 1)
            _ = try await client.shutdownAndExit()
        }
    }

    @Test func theOpenDocumentsLanguageRanksFirst() async throws {
        let client = TestClient(library: askLibrary)
        try await client.initialize()
        client.open("file:///w/a.py", language: "python", text: "")
        let params: JSONValue = ["question": "guard", "textDocument": ["uri": "file:///w/a.py"], "position": ["line": 0, "character": 0]]
        let result = try await client.result("snippets/ask", params).decode(AskResponse.self)
        // The whole library is searched, the document's language first, and only its snippet is named.
        #expect(result.candidates.map(\.title) == ["Python guard clause", "Swift guard let"])
        #expect(result.citations.map(\.title) == ["Python guard clause"])
        _ = try await client.shutdownAndExit()
    }

    @Test func invalidParamsGetTheirOwnError() async throws {
        let client = TestClient(library: askLibrary)
        try await client.initialize()
        for params: JSONValue in [["question": ""], ["question": "ok", "limit": 0], ["limit": 3], ["question": 42]] {
            guard case .failure(let error) = await client.request("snippets/ask", params) else {
                Issue.record("\(params) was accepted")
                continue
            }
            #expect(error.code == -32602, "\(params)")
            #expect(!error.message.isEmpty)
        }
        _ = try await client.shutdownAndExit()
    }

    @Test func reportsProgressForAWorkDoneToken() async throws {
        let client = TestClient(library: askLibrary)
        try await client.initialize()
        let id = client.sendRequest("snippets/ask", ["question": "café menu", "workDoneToken": "t1"])
        var kinds: [String] = []
        while kinds.last != "end", let progress = await client.notification("$/progress") {
            #expect(progress["token"] == "t1")
            kinds.append(progress["value"]?["kind"]?.stringValue ?? "?")
        }
        #expect(kinds.first == "begin" && kinds.last == "end" && kinds.contains("report"))
        guard case .success = await client.response(to: id) else {
            Issue.record("no result")
            return
        }
        _ = try await client.shutdownAndExit()
    }

    @Test func anEmptyLibraryIsNotANoMatch() async throws {
        let client = TestClient(library: TestLibrary())
        try await client.initialize()
        let result = try await client.result("snippets/ask", ["question": "café menu"]).decode(AskResponse.self)
        #expect(result.status == "emptyLibrary")
        #expect(result.reason?.message.contains("/lib") == true)
        _ = try await client.shutdownAndExit()
    }
}

/// A model that takes its time, so a test can act while an ask is in flight.
private struct SlowModel: AskModel {
    func searchWords(question: String) async throws(AskModelError) -> [String] { [] }
    func pick(_ request: PickRequest) async throws(AskModelError) -> PickReply {
        try? await Task.sleep(for: .seconds(20))
        return PickReply(status: .answered, cited: request.candidateIDs.prefix(1).map { $0 })
    }
}

/// `snippets/ask` answered with `SlowModel`.
private enum SlowAskHandler: RequestHandler {
    static let method = AskHandler.method
    static let runsConcurrently = AskHandler.runsConcurrently
    static func handle(_ params: AskParams, context: RequestContext) async throws -> AskResponse {
        try await AskHandler.answer(params, context: context, model: SlowModel())
    }
}

@Suite struct AskConcurrencyTests {
    @Test func completionsDoNotWaitAndCancelStopsTheAsk() async throws {
        var handlers = RequestHandlerRegistry.standard
        handlers.register(SlowAskHandler.self)
        let client = TestClient(library: askLibrary, handlers: handlers)
        try await client.initialize(capabilities: ["textDocument": ["completion": ["completionItem": ["snippetSupport": true]]]])
        client.open("file:///w/a.swift", language: "swift", text: "menu")
        let ask = client.sendRequest("snippets/ask", ["question": "café menu", "workDoneToken": 7])
        let begin = await client.notification("$/progress")
        #expect(begin?["value"]?["kind"] == "begin")
        let list = try await client.complete("file:///w/a.swift", line: 0, character: 4)
        #expect(list.items.contains { $0.label == "menu" })
        // By order, not by seconds: the completion was answered while the ask (its model takes 20 s) was not.
        let early = await client.response(to: ask, timeout: .milliseconds(1))
        #expect(early.map { _ in true } == nil, "the completion waited for the ask")
        client.notify("$/cancelRequest", ["id": .int(ask)])
        guard case .failure(let error) = await client.response(to: ask) else {
            Issue.record("the cancelled ask was not answered with an error")
            return
        }
        #expect(error.code == -32800)
        _ = try await client.shutdownAndExit()
    }
}
