import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// A request that runs until it is cancelled, to test `$/cancelRequest`.
enum SlowTestHandler: RequestHandler {
    static let method = "test/slow"
    static func handle(_ params: IgnoredParams, context: RequestContext) async throws -> String {
        try await Task.sleep(for: .seconds(60))
        return "finished"
    }
}

/// A request that fails with a plain Swift error, to test the one place errors become replies.
enum FailingTestHandler: RequestHandler {
    struct Failure: Error {}
    static let method = "test/fail"
    static func handle(_ params: IgnoredParams, context: RequestContext) async throws -> String { throw Failure() }
}

private var testRegistry: RequestHandlerRegistry {
    var registry = RequestHandlerRegistry.standard
    registry.register(SlowTestHandler.self)
    registry.register(FailingTestHandler.self)
    return registry
}

/// JSON-RPC and lifecycle rules, over the in-memory transport.
struct ProtocolTests {
    @Test func invalidJSONGetsParseErrorWithNullID() async throws {
        let client = TestClient()
        client.sendRaw(MessageFramer.frame(Array("{not json".utf8)))
        let message = await client.inbox.next(timeout: patience) { if case .response = $0 { true } else { false } }
        #expect(message == .response(id: nil, result: .failure(.parseError("message is not valid JSON"))))
    }

    @Test func requestBeforeInitializeGetsServerNotInitialized() async throws {
        let client = TestClient()
        #expect(errorCode(await client.request("textDocument/completion", [:])) == -32002)
        // ... and the server still initializes afterwards.
        try await client.initialize()
    }

    @Test func unknownMethodGetsMethodNotFoundAndUnknownNotificationsAreIgnored() async throws {
        let client = TestClient()
        try await client.initialize()
        client.notify("custom/whatever", ["x": 1])
        #expect(errorCode(await client.request("custom/unknown", [:])) == -32601)
        // The ignored notification got no reply of any kind.
        #expect(await client.inbox.unclaimed().allSatisfy { if case .response = $0 { false } else { true } })
    }

    @Test func jsonThatIsNotARequestGetsInvalidRequest() async throws {
        let client = TestClient()
        try await client.initialize()
        client.send([1, 2])
        let first = await client.inbox.next(timeout: patience) { if case .response = $0 { true } else { false } }
        #expect(errorCode(first.flatMap { if case .response(_, let result) = $0 { result } else { nil } }) == -32600)
        client.send(["jsonrpc": "2.0", "id": 7, "method": 3])
        #expect(errorCode(await client.response(to: 7)) == -32600)
    }

    @Test func thrownErrorsBecomeInternalErrorAndBadParamsInvalidParams() async throws {
        let client = TestClient(handlers: testRegistry)
        try await client.initialize()
        #expect(errorCode(await client.request("test/fail")) == -32603)
        #expect(errorCode(await client.request("textDocument/completion", ["textDocument": 3])) == -32602)
    }

    @Test func everyRequestGetsExactlyOneReplyInOrder() async throws {
        let client = TestClient(library: TestLibrary([makeFile([makeSnippet("For loop", triggers: ["for"], body: "for $1 {}")])]))
        try await client.initialize()
        client.open("file:///a.swift", language: "swift", text: "fo")
        let ids = (0..<20).map { index in
            client.sendRequest(index % 3 == 0 ? "nope/\(index)" : "textDocument/completion",
                ["textDocument": ["uri": "file:///a.swift"], "position": ["line": 0, "character": 2]])
        }
        var order: [Int] = []
        for _ in ids {
            let message = await client.inbox.next(timeout: patience) { if case .response = $0 { true } else { false } }
            if case .response(.number(let id), _) = message { order.append(id) }
        }
        #expect(order == ids)
        try await Task.sleep(for: .milliseconds(200))
        let extra = await client.inbox.unclaimed().filter { if case .response = $0 { true } else { false } }
        #expect(extra.isEmpty)
    }

    @Test func cancelledRunningRequestAnswersRequestCancelledAndStops() async throws {
        let client = TestClient(handlers: testRegistry)
        try await client.initialize()
        let slow = client.sendRequest("test/slow")
        let queued = client.sendRequest("test/fail")
        try await Task.sleep(for: .milliseconds(100))
        client.notify("$/cancelRequest", ["id": .int(queued)])
        client.notify("$/cancelRequest", ["id": .int(slow)])
        // The slow request would take 60 s; cancelling it answers at once.
        #expect(errorCode(await client.response(to: slow, timeout: patience)) == -32800)
        // A request cancelled while still queued is answered -32800 without running (it would have given -32603).
        #expect(errorCode(await client.response(to: queued, timeout: patience)) == -32800)
        #expect(try await client.shutdownAndExit() == 0)
    }

    @Test func exitAfterShutdownIsZeroAndRequestsAfterShutdownAreInvalid() async throws {
        let client = TestClient()
        try await client.initialize()
        _ = try await client.result("shutdown")
        #expect(errorCode(await client.request("textDocument/completion", [:])) == -32600)
        client.notify("exit")
        #expect(await client.exitStatus() == 0)
    }

    @Test func exitWithoutShutdownIsOne() async throws {
        let client = TestClient()
        try await client.initialize()
        client.notify("exit")
        #expect(await client.exitStatus() == 1)
    }

    @Test func endOfInputWithoutExitIsOne() async throws {
        let client = TestClient()
        try await client.initialize()
        client.closeInput()
        #expect(await client.exitStatus() == 1)
    }

    @Test func secondInitializeIsInvalidRequest() async throws {
        let client = TestClient()
        try await client.initialize()
        #expect(errorCode(await client.request("initialize", ["capabilities": [:]])) == -32600)
    }

    @Test(arguments: [
        ([String](), "utf-16"),
        (["utf-16"], "utf-16"),
        (["utf-8", "utf-16"], "utf-8"),
        (["utf-32"], "utf-32"),
        (["latin-1", "utf-32", "utf-8"], "utf-32"),
    ])
    func positionEncodingIsNegotiated(offered: [String], expected: String) async throws {
        let client = TestClient()
        let capabilities: JSONValue = offered.isEmpty ? [:] : ["general": ["positionEncodings": .array(offered.map { .string($0) })]]
        let result = try await client.initialize(capabilities: capabilities)
        #expect(result["capabilities"]?["positionEncoding"] == .string(expected))
        #expect(await client.server.positionEncoding.rawValue == expected)
    }

    @Test func initializeAdvertisesCompletionAndIncrementalSync() async throws {
        let client = TestClient()
        let result = try await client.initialize()
        #expect(result["capabilities"]?["completionProvider"]?["resolveProvider"] == true)
        #expect(result["capabilities"]?["textDocumentSync"]?["change"] == 2)
        #expect(result["serverInfo"]?["name"] == "snippets-lsp")
    }

    /// What a client reads from `initialize` and from the registrations, member for member: the capabilities
    /// are typed now, and a client's configuration (lsp-mode, eglot) keys on exactly these names and values.
    @Test func theInitializeResultAndTheRegistrationsAreExactlyTheseJSON() async throws {
        let library = TestLibrary([makeFile([makeSnippet("Doctype", triggers: ["!d"], body: "<!doctype html>")])])
        // The reply waits for the first load; a busy machine must not turn it into the still-loading reply.
        let plain = try await TestClient(library: library, firstLoadWait: patience).initialize()
        #expect(String(decoding: plain.serialized(), as: UTF8.self) == """
            {"capabilities":{"codeActionProvider":{"codeActionKinds":["refactor.rewrite","refactor.extract"],"resolveProvider":true},\
            "completionProvider":{"resolveProvider":true,"triggerCharacters":["!"]},\
            "executeCommandProvider":{"commands":["snippets.ask","snippets.saveSelection","snippets.learn","snippets.forget"]},\
            "experimental":{"snippetsAsk":true,"snippetsVerifyCitations":true},"positionEncoding":"utf-16",\
            "textDocumentSync":{"change":2,"openClose":true},"workspace":{"workspaceFolders":{"supported":true}}},\
            "serverInfo":{"name":"snippets-lsp","version":"\(LanguageServer.serverVersion)"}}
            """)

        let client = TestClient(library: library)
        let registering = try await client.initialize(capabilities: [
            "textDocument": ["completion": ["dynamicRegistration": true]],
            "workspace": ["didChangeWatchedFiles": ["dynamicRegistration": true]],
        ])
        #expect(registering["capabilities"]?["completionProvider"] == nil)
        let watcher = try #require(await client.notification("client/registerCapability"))
        #expect(String(decoding: watcher.serialized(), as: UTF8.self) == """
            {"registrations":[{"id":"snippets-library-watch","method":"workspace/didChangeWatchedFiles",\
            "registerOptions":{"watchers":[{"globPattern":"/lib/**/*"}]}}]}
            """)
        let completion = try #require(await client.notification("client/registerCapability"))
        #expect(String(decoding: completion.serialized(), as: UTF8.self) == """
            {"registrations":[{"id":"snippets-completion-1","method":"textDocument/completion",\
            "registerOptions":{"documentSelector":null,"resolveProvider":true,"triggerCharacters":["!"]}}]}
            """)
        library.put(makeFile([makeSnippet("At", triggers: ["@x"], body: "@x")]))
        client.notify("workspace/didChangeWatchedFiles", ["changes": []])
        try await client.nextLoad()
        let unregistration = try #require(await client.notification("client/unregisterCapability"))
        #expect(String(decoding: unregistration.serialized(), as: UTF8.self) == """
            {"unregisterations":[{"id":"snippets-completion-1","method":"textDocument/completion"}]}
            """)
    }

    @Test func serveHelpAndBadOptions() async {
        let output = CapturedOutput()
        #expect(await CommandLineTool.run(arguments: ["serve", "--help"], environment: [:], output: output.output) == 0)
        #expect(output.standardOutput.contains("--library PATH"))
        #expect(await CommandLineTool.run(arguments: ["serve", "--bogus"], environment: [:], output: output.output) == 2)
        #expect(output.standardError.contains("unknown option '--bogus'"))
    }
}
