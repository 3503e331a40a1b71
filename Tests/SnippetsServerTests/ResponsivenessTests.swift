import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// A slow request that runs beside the queue, as `snippets/ask` does.
enum ConcurrentSlowTestHandler: RequestHandler {
    static let method = "test/slowConcurrent"
    static let runsConcurrently = true
    static func handle(_ params: IgnoredParams, context: RequestContext) async throws -> String {
        try await Task.sleep(for: .seconds(60))
        return "finished"
    }
}

/// Renders fifty snippets of eight catastrophic transforms each and says what the request's regex budget spent.
enum HostileTransformsTestHandler: RequestHandler {
    static let method = "test/hostileTransforms"
    static func handle(_ params: IgnoredParams, context: RequestContext) async throws -> Int {
        let body = "${1:" + String(repeating: "a", count: 28) + "!}" + String(repeating: " ${1/^(a|a)*$/x/}", count: 8)
        for _ in 0..<50 { _ = SnippetBody.parse(body).body.plainText() }
        return RegexBudget.request?.spentTicks ?? -1
    }
}

/// Completion never waits on slow work: concurrent handlers and library reloads.
struct ResponsivenessTests {
    private let library = TestLibrary([makeFile([makeSnippet("Hello", triggers: ["hello"], body: "hello()")])])

    @Test func completionIsAnsweredWhileAConcurrentRequestRuns() async throws {
        var registry = RequestHandlerRegistry.standard
        registry.register(ConcurrentSlowTestHandler.self)
        let client = TestClient(library: library, handlers: registry)
        try await client.initialize()
        client.open("file:///w/a.txt", language: "plaintext", text: "hel")
        let slow = client.sendRequest("test/slowConcurrent")
        #expect(try await client.complete("file:///w/a.txt", line: 0, character: 3).items.map(\.label) == ["hello"])
        // By order, not by seconds: the completion was answered while the slow request (a minute's sleep) had not been.
        let early = await client.response(to: slow, timeout: .milliseconds(1))
        #expect(early.map { _ in true } == nil, "the slow request finished first")
        client.notify("$/cancelRequest", ["id": .int(slow)])
        #expect(errorCode(await client.response(to: slow, timeout: patience)) == -32800)
    }

    @Test func completionAndAskAreAnsweredWhileTheLibraryIsBeingEmbedded() async throws {
        // An encoder that does not return until the test opens its gate: embedding is under way for as long as the
        // test wants, on its own thread.
        let gate = GatedEmbedder(questions: ["hello"])
        let client = TestClient(library: library) { configuration in
            configuration.meaning = MeaningService(embedder: gate, cacheFolder: nil)
        }
        try await client.initialize()
        #expect(gate.waitUntilEntered(), "embedding never started")
        client.open("file:///w/a.txt", language: "plaintext", text: "hel")
        #expect(try await client.complete("file:///w/a.txt", line: 0, character: 3).items.map(\.label) == ["hello"])
        // An ask meanwhile is answered by words, and says meaning search is not ready.
        let during = try await client.result("snippets/ask", ["question": "hello"]).decode(AskResponse.self)
        #expect(during.status == "answered")
        #expect(during.meaning?.state == "embedding")
        #expect(gate.isBlocked, "the embedding finished before the requests were answered")
        gate.open()
        var state = during.meaning?.state
        for _ in 0..<200 where state != "ready" {
            try await Task.sleep(for: .milliseconds(20))
            state = try await client.result("snippets/ask", ["question": "hello"]).decode(AskResponse.self).meaning?.state
        }
        #expect(state == "ready")
    }

    @Test func everyRequestsTransformsShareOneRegexBudget() async throws {
        var registry = RequestHandlerRegistry.standard
        registry.register(HostileTransformsTestHandler.self)
        let client = TestClient(library: library, handlers: registry)
        try await client.initialize()
        // 400 transforms of minutes each: the request spends its budget, no more, and then the next request its own.
        let first = try #require(await client.request("test/hostileTransforms")).get()
        #expect(first == .int(RegexBudget.perRequest))
        let second = try #require(await client.request("test/hostileTransforms")).get()
        #expect(second == .int(RegexBudget.perRequest))
    }

    @Test func rendersRunBesideTheQueue() {
        // Resolve and snippetText render bodies (transforms included), so a completion typed after them need not wait.
        #expect(CompletionResolveHandler.runsConcurrently)
        #expect(SnippetTextHandler.runsConcurrently)
    }

    @Test func completionDuringASlowReloadServesTheCurrentLibrary() async throws {
        let client = TestClient(library: library)
        try await client.initialize()
        library.setLoadDelay(.seconds(2))
        library.put(makeFile([makeSnippet("Help", triggers: ["help"], body: "help()")]))
        client.notify("workspace/didChangeWatchedFiles", ["changes": []])
        client.open("file:///w/a.txt", language: "plaintext", text: "hel")
        // Had the completion waited for the 2 s reload, it would offer "help".
        #expect(try await client.complete("file:///w/a.txt", line: 0, character: 3).items.map(\.label) == ["hello"])
        try await client.nextLoad()
        #expect(try await client.complete("file:///w/a.txt", line: 0, character: 3).items.map(\.label) == ["help"])
    }
}

/// An embedder whose `embed` blocks until `open()`, except for the texts in `questions` (encoded at once, as an ask
/// encodes its question beside the embedding).
final class GatedEmbedder: SentenceEmbedder, @unchecked Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let gate = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var blocked = false
    private var opened = false
    let questions: Set<String>
    init(questions: Set<String>) { self.questions = questions }
    var identity: String { "gated-1" }
    var dimension: Int { 2 }
    var isBlocked: Bool { lock.withLock { blocked } }

    func embed(_ texts: [String]) -> [[Float]] {
        let wait = lock.withLock { () -> Bool in
            if opened || texts.allSatisfy(questions.contains) { return false }
            blocked = true
            return true
        }
        if wait {
            entered.signal()
            gate.wait()
            gate.signal()
        }
        return texts.map { _ in [0.6, 0.8] }
    }

    /// Whether `embed` was entered within ten seconds.
    func waitUntilEntered() -> Bool { entered.wait(timeout: .now() + 10) == .success }

    func open() {
        lock.withLock {
            opened = true
            blocked = false
        }
        gate.signal()
    }
}
