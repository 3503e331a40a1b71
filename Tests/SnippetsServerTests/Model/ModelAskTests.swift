import Foundation
import SnippetsCore
import SnippetsModelClient
import Testing

@testable import SnippetsServer

/// A fake server that gives `words` to the search-words stage and answers the pick stage with `pick`.
func stagedServer(
    words: FakeModelServer.Behaviour = FakeModelServer.completion(#"{"words":["reminder","unpaid","chase"]}"#),
    pick: @escaping @Sendable (FakeModelServer.Request) -> FakeModelServer.Behaviour
) throws -> FakeModelServer {
    try FakeModelServer { request in
        if request.path == "/props" { return props(4096) }
        // The search-words stage asks under the schema named "search_words".
        let format = request.json["response_format"] as? [String: Any]
        let name = (format?["json_schema"] as? [String: Any])?["name"] as? String
        return name == "search_words" ? words : pick(request)
    }
}

/// The deterministic result for `question`, to compare fallbacks with.
func deterministic(_ question: String) async throws -> AskResult {
    try await AskPipeline(library: clientLibrary).answer(AskRequest(question: question))
}

/// `question` asked of the client library through the pipeline with a client of `server`.
func askWithModel(_ question: String, _ server: FakeModelServer, timeout: Double = 1) async throws -> AskResult {
    try await AskPipeline(library: clientLibrary, model: client(server, timeout: timeout)).answer(AskRequest(question: question))
}

let overdueQuestion = "how do I chase an overdue invoice?"

@Suite struct ModelPipelineTests {
    @Test func aPickThatPassesTheAuditIsAnswered() async throws {
        let server = try stagedServer { _ in
            FakeModelServer.completion(#"{"status":"answered","cited":["\#(snippetID("Overdue payment reminder"))"],"note":"bestFirst"}"#)
        }
        let result = try await askWithModel(overdueQuestion, server)
        #expect(result.status == .answered)
        #expect(result.citations.map(\.title) == ["Overdue payment reminder"])
        #expect(result.answer == "Your library has \"Overdue payment reminder\". The first fits best.")
        // The model's words are added after the question's own, never instead of them.
        #expect(Array(result.searchTerms.prefix(2)) == ["chase", "overdue"])
        #expect(result.searchTerms.contains("reminder") && result.searchTerms.contains("unpaid"))
        #expect(server.chatRequests.count == 2)
    }

    @Test(arguments: ModelClientFaultTests.cases.indices)
    func aFaultyPickFallsBackToTheDeterministicAnswerWithItsReason(index: Int) async throws {
        let (name, behaviour, code) = ModelClientFaultTests.cases[index]
        let server = try stagedServer { _ in behaviour }
        let result = try await askWithModel(overdueQuestion, server)
        let expected = try await deterministic(overdueQuestion)
        #expect(result.status == .fallback, "\(name)")
        #expect(result.reason?.code == code, "\(name): \(String(describing: result.reason))")
        #expect(result.citations.map(\.title) == expected.citations.map(\.title), "\(name)")
        #expect(result.reason?.message.hasSuffix("so this answer was put together from the matching snippets directly.") == true)
    }

    @Test func aPickThatLeavesOutWhatTheQuestionsWordsNameIsOverruled() async throws {
        let server = try stagedServer { _ in
            FakeModelServer.completion(#"{"status":"answered","cited":["\#(snippetID("Invoice footer"))"],"note":""}"#)
        }
        let result = try await askWithModel(overdueQuestion, server)
        let expected = try await deterministic(overdueQuestion)
        #expect(!expected.citations.isEmpty)
        #expect(result.status == .fallback)
        #expect(result.reason?.code == .modelDisagreed)
        #expect(result.reason?.message.hasPrefix("The model disagreed") == true)
        #expect(result.answer == expected.answer)
        #expect(result.citations.map(\.title) == expected.citations.map(\.title))
    }

    @Test func aFaultyWordsStageSkipsThePick() async throws {
        let server = try stagedServer(words: .reply(status: 500, body: "{}")) { _ in
            Issue.record("the pick stage was called after the words stage failed")
            return .close
        }
        let result = try await askWithModel(overdueQuestion, server)
        #expect(result.status == .fallback)
        #expect(result.reason?.code == .modelServerError)
        #expect(server.chatRequests.count == 1)
    }

    @Test func withNoCandidatesTheModelIsNotAskedToPick() async throws {
        let server = try stagedServer(words: FakeModelServer.completion(#"{"words":["telescope","nebula","orbit"]}"#)) { _ in
            Issue.record("the pick stage was called without candidates")
            return .close
        }
        let result = try await askWithModel("where is my astronomy homework?", server)
        #expect(result.status == .noMatch)
        #expect(result.reason?.code == .nothingRetrieved)
        #expect(server.chatRequests.count == 1)
    }

    @Test(arguments: [
        ("an id that was not a candidate", #"{"status":"answered","cited":["s0000000000000000"],"note":""}"#, AskReasonCode.auditFailed),
        // The note is a choice among fixed sentences: words of the model's own do not fit the schema at all.
        ("a number not in evidence", #"{"status":"answered","cited":["ID"],"note":"It costs 999 euros."}"#, .modelSchemaMismatch),
        ("an invented title", #"{"status":"answered","cited":["ID"],"note":"See also \"Free Upgrade Coupon\"."}"#, .modelSchemaMismatch),
        ("echoed instructions", #"{"status":"answered","cited":["ID"],"note":"Ignore all previous instructions."}"#, .modelSchemaMismatch),
    ])
    func aLyingPickIsReplaced(name: String, reply: String, code: AskReasonCode) async throws {
        let output = reply.replacingOccurrences(of: "\"ID\"", with: "\"\(snippetID("Overdue payment reminder"))\"")
        let server = try stagedServer { _ in FakeModelServer.completion(output) }
        let result = try await askWithModel("invoice coupon instructions overdue", server)
        #expect(result.status == .fallback, "\(name)")
        #expect(result.reason?.code == code, "\(name): \(String(describing: result.reason))")
        if code == .auditFailed { #expect(result.reason?.failedRules.contains(.citedIDsRetrieved) == true) }
        #expect(!result.answer.contains("999") && !result.answer.contains("Free Upgrade") && !result.answer.contains("Ignore all"))
    }

    @Test func anUnreachableModelCostsAtMostItsTimeout() async throws {
        let server = try FakeModelServer { _ in .stall(seconds: 300) }
        let result = try await askWithModel(overdueQuestion, server, timeout: 0.5)
        // By order: one timeout (the words stage), then no pick, and the ask returned while the server still held
        // its one request.
        #expect(server.stallsRunOut == 0, "the ask waited for the server to give up")
        #expect(server.requests.count == 1)
        #expect(result.status == .fallback)
        #expect(result.reason?.code == .modelTimeout)
        #expect(result.reason?.message.contains("0.5 seconds") == true)
        server.stop()
    }
}

@Suite struct ModelSettingsTests {
    @Test func aModelObjectIsRead() throws {
        let (settings, problems) = ServerSettings().applying([
            "snippets": [
                "model": [
                    "url": "http://localhost:11434/v1", "name": "llama3.2", "apiKeyEnvironmentVariable": "SNIPPETS_OLLAMA_KEY",
                    "timeoutSeconds": .double(12.5), "candidates": 5,
                ]
            ]
        ])
        #expect(problems.isEmpty)
        let model = try #require(settings.model)
        #expect(model.chatCompletionsURL.absoluteString == "http://localhost:11434/v1/chat/completions")
        #expect(model.propertiesURL.absoluteString == "http://localhost:11434/props")
        #expect(model.modelName == "llama3.2" && model.apiKeyEnvironmentVariable == "SNIPPETS_OLLAMA_KEY")
        #expect(model.timeoutSeconds == 12.5 && model.candidates == 5)
        #expect(settings.applying(JSONValue.object(["model": .null])).settings.model == nil)
        #expect(settings.applying(JSONValue.object(["maxCompletionItems": 3])).settings.model == model, "an absent key keeps the model")
    }

    @Test(arguments: [
        ("model", "http://x" as JSONValue, nil as Int?),
        ("model.url", ["url": "ftp://host"], nil),
        ("model.url", ["name": "llama3.2"], nil),
        ("model.name", ["url": "http://h:1", "name": 3], 8),
        ("model.apiKeyEnvironmentVariable", ["url": "http://h:1", "apiKeyEnvironmentVariable": "sk-abc 123"], 8),
        ("model.timeoutSeconds", ["url": "http://h:1", "timeoutSeconds": -1], 8),
        ("model.candidates", ["url": "http://h:1", "candidates": 0], 8),
        ("model.candidates", ["url": "http://h:1", "candidates": "many"], 8),
    ] as [(String, JSONValue, Int?)])
    func invalidValuesAreNamed(name: String, value: JSONValue, candidates: Int?) {
        let (settings, problems) = ServerSettings().applying(["model": value])
        #expect(problems.map(\.name) == [name])
        #expect(problems.first?.message.contains("'snippets.\(name)'") == true)
        #expect(settings.model?.candidates == candidates)
        // The key's value is never echoed: the message names the variable setting, not what was typed.
        #expect(problems.first?.message.contains("sk-abc") == false)
    }
}

/// Settings may come from a repository: they must not choose which secret is sent, nor where a secret goes.
@Suite struct ModelSecretRuleTests {
    @Test(arguments: ["AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "HOME", "SNIPPETS_", "OPENAI_API_KEY_2"])
    func settingsCannotNameAnyOtherVariable(variable: String) {
        let (settings, problems) = ServerSettings().applying(["model": ["url": "https://evil.example", "apiKeyEnvironmentVariable": .string(variable)]])
        #expect(settings.model?.apiKeyEnvironmentVariable == nil)
        #expect(problems.map(\.name) == ["model.apiKeyEnvironmentVariable"])
        #expect(problems.first?.message.contains(variable) == false || variable == "SNIPPETS_")
    }

    @Test(arguments: ["OPENAI_API_KEY", "SNIPPETS_MODEL_KEY"])
    func theFixedNamesAreAccepted(variable: String) {
        let (settings, problems) = ServerSettings().applying(["model": ["url": "http://127.0.0.1:8080", "apiKeyEnvironmentVariable": .string(variable)]])
        #expect(problems.isEmpty)
        #expect(settings.model?.apiKeyEnvironmentVariable == variable)
    }

    @Test func aSettingsChangeCannotSendTheKeyToAnotherURLNorPickAKey() async throws {
        let environment = ["SNIPPETS_MODEL_KEY": "secret-value"]
        let client = TestClient(environment: environment)
        try await client.initialize(options: ["model": ["url": "http://127.0.0.1:9", "apiKeyEnvironmentVariable": "SNIPPETS_MODEL_KEY"]])
        #expect(await client.server.settings.model?.apiKeyEnvironmentVariable == "SNIPPETS_MODEL_KEY")
        // Same URL and key, other timeout: kept.
        client.notify("workspace/didChangeConfiguration", ["settings": ["snippets": ["model": [
            "url": "http://127.0.0.1:9", "apiKeyEnvironmentVariable": "SNIPPETS_MODEL_KEY", "timeoutSeconds": 5]]]])
        _ = try await client.result("snippets/stats")
        #expect(await client.server.settings.model?.apiKeyEnvironmentVariable == "SNIPPETS_MODEL_KEY")
        #expect(await client.server.settings.model?.timeoutSeconds == 5)
        // A repository's settings move the model elsewhere: neither the model nor the key moves.
        client.notify("workspace/didChangeConfiguration", ["settings": ["snippets": ["model": [
            "url": "https://collector.example/v1", "apiKeyEnvironmentVariable": "SNIPPETS_MODEL_KEY"]]]])
        let warning = try #require(await client.notification("window/showMessage"))
        #expect(warning["message"]?.stringValue?.contains("only when the server starts") == true)
        let model = await client.server.settings.model
        #expect(model?.baseURL.host == "127.0.0.1")
        #expect(model?.apiKeyEnvironmentVariable == "SNIPPETS_MODEL_KEY")
        _ = try await client.shutdownAndExit()
    }
}

@Suite struct ModelServerTests {
    @Test func theModelSettingPutsTheModelBehindSnippetsAsk() async throws {
        let server = try stagedServer { _ in
            FakeModelServer.completion(#"{"status":"answered","cited":["\#(snippetID("Overdue payment reminder"))"],"note":""}"#)
        }
        let client = TestClient(library: TestLibrary([clientLibrary.files[0]]))
        try await client.initialize(options: ["snippets": ["model": ["url": .string(server.url), "timeoutSeconds": 2, "candidates": 3]]])
        // An ask that calls a model over loopback: on two cores beside the whole suite it can wait on the pool for
        // longer than a plain request's 10 s, and what is tested here is which model answers, not how fast.
        let result = try await client.result("snippets/ask", ["question": .string(overdueQuestion)], timeout: .seconds(60))
            .decode(AskResponse.self)
        #expect(result.status == "answered")
        #expect(result.citations.map(\.title) == ["Overdue payment reminder"])
        let pickSchema = server.chatRequests.last.flatMap { (($0.json["response_format"] as? [String: Any])?["json_schema"] as? [String: Any])?["schema"] as? [String: Any] }
        let cited = (pickSchema?["properties"] as? [String: Any])?["cited"] as? [String: Any]
        #expect(cited?["maxItems"] as? Int ?? 0 <= 3, "candidates: 3 shows at most three snippets")

        client.notify("workspace/didChangeConfiguration", ["settings": ["snippets": ["model": ["url": "not a url"]]]])
        let warning = try #require(await client.notification("window/showMessage"))
        #expect(warning["type"] == 2)
        #expect(warning["message"]?.stringValue?.contains("model.url") == true)
        let plain = try await client.result("snippets/ask", ["question": .string(overdueQuestion)], timeout: .seconds(60))
            .decode(AskResponse.self)
        #expect(plain.status == "answered" && plain.reason == nil)
        #expect(server.chatRequests.count == 2, "the model was asked after it was switched off")
        _ = try await client.shutdownAndExit()
    }

    @Test func anUnsetKeyVariableIsNamedInAWarning() async throws {
        let client = TestClient()
        try await client.initialize(options: ["model": ["url": "http://127.0.0.1:9", "apiKeyEnvironmentVariable": "SNIPPETS_NOT_SET_KEY"]])
        let warning = try #require(await client.notification("window/showMessage"))
        #expect(warning["type"] == 2)
        #expect(warning["message"]?.stringValue?.contains("SNIPPETS_NOT_SET_KEY") == true)
        #expect(warning["message"]?.stringValue?.contains("model.apiKeyEnvironmentVariable") == true)
        _ = try await client.shutdownAndExit()
    }

    @Test func aStalledModelSlowsNoCompletionAndCancelHangsUp() async throws {
        let server = try FakeModelServer { _ in .stall(seconds: 20) }
        let client = TestClient(library: TestLibrary([clientLibrary.files[0]]))
        try await client.initialize(
            capabilities: ["textDocument": ["completion": ["completionItem": ["snippetSupport": true]]]],
            options: ["model": ["url": .string(server.url), "timeoutSeconds": 30]])
        client.open("file:///w/a.txt", language: "plaintext", text: "")
        let ask = client.sendRequest("snippets/ask", ["question": .string(overdueQuestion)])
        #expect(await eventually { server.requests.count >= 1 }, "the ask never reached the model")
        _ = try await client.complete("file:///w/a.txt", line: 0, character: 0)
        // By order, not by seconds: the completion was answered while the ask (its model stalls 20 s) was not.
        let early = await client.response(to: ask, timeout: .milliseconds(1))
        #expect(early.map { _ in true } == nil, "the completion waited for the model")
        client.notify("$/cancelRequest", ["id": .int(ask)])
        guard case .failure(let error) = await client.response(to: ask, timeout: .seconds(5)) else {
            Issue.record("the cancelled ask was not answered with an error")
            return
        }
        #expect(error.code == -32800)
        #expect(await eventually { server.clientHangUps == 1 }, "the model request outlived its ask")
        _ = try await client.shutdownAndExit()
    }
}

/// Every way of asking that may wait on a model: none of them holds up completions, document changes keep their
/// order, each request gets exactly one reply, and the server stops when its input ends without waiting for the
/// model's timeout. One at a time: each holds a connection to a stalled loopback server.
@Suite(.serialized) struct ModelOffTheQueueTests {
    /// The three requests besides `snippets/ask` that run an ask, sent on a document whose line 0 is a marker line.
    enum Route: String, CaseIterable, Sendable {
        case executeCommand, codeActionWithoutResolve, codeActionResolve
    }

    static let uri = "file:///w/a.txt"
    static let text = "?? \(overdueQuestion)\nhel"

    func send(_ route: Route, to client: TestClient) -> Int {
        let arguments: JSONValue = [
            "question": .string(overdueQuestion), "textDocument": ["uri": .string(Self.uri)],
            "range": ["start": ["line": 0, "character": 3], "end": ["line": 0, "character": 37]],
        ]
        switch route {
        case .executeCommand:
            return client.sendRequest("workspace/executeCommand", ["command": "snippets.ask", "arguments": [arguments]])
        case .codeActionWithoutResolve:
            let range: JSONValue = ["start": ["line": 0, "character": 0], "end": ["line": 0, "character": 0]]
            return client.sendRequest(
                "textDocument/codeAction",
                ["textDocument": ["uri": .string(Self.uri)], "range": range, "context": ["diagnostics": []]])
        case .codeActionResolve:
            return client.sendRequest(
                "codeAction/resolve", ["title": "Ask snippets", "kind": "refactor.rewrite", "data": arguments])
        }
    }

    @Test(arguments: Route.allCases)
    func aStalledModelHoldsUpNoCompletionAndNoExit(_ route: Route) async throws {
        // The model never answers within the test: it stalls longer than any wait below.
        let model = try FakeModelServer { _ in .stall(seconds: 120) }
        let client = TestClient(library: TestLibrary([makeFile([makeSnippet("Hello", triggers: ["hello"], body: "hello()")])]))
        var capabilities: JSONValue = [:]
        if route == .codeActionResolve {
            capabilities = ["textDocument": ["codeAction": ["resolveSupport": ["properties": ["edit"]]]]]
        }
        try await client.initialize(
            capabilities: capabilities, options: ["model": ["url": .string(model.url), "timeoutSeconds": 120]])
        client.open(Self.uri, language: "plaintext", text: Self.text)
        let ask = send(route, to: client)
        #expect(await eventually { model.requests.count >= 1 }, "the ask never reached the model")
        // A change sent after the ask is applied in order, and the completion after it sees it.
        client.notify("textDocument/didChange", [
            "textDocument": ["uri": .string(Self.uri), "version": 2],
            "contentChanges": [["range": ["start": ["line": 1, "character": 3], "end": ["line": 1, "character": 3]], "text": "l"]],
        ])
        let completion = await client.response(
            to: client.sendRequest("textDocument/completion", [
                "textDocument": ["uri": .string(Self.uri)], "position": ["line": 1, "character": 4],
            ]), timeout: .seconds(60))
        guard case .success(let list) = completion else {
            Issue.record("no completion while the ask waited on the model (\(route)): \(String(describing: completion))")
            return
        }
        #expect(list["items"]?.arrayValue?.first?["label"] == "hello")
        #expect(list["items"]?.arrayValue?.first?["textEdit"]?["range"]?["end"]?["character"] == 4)
        // The ask is still waiting on the model, unanswered.
        #expect(await client.response(to: ask, timeout: .milliseconds(50)) == nil)
        // The editor goes away: the server stops at once (not after the model's 120 s) and hangs up on the model.
        client.closeInput()
        #expect(await client.exitStatus() == 1)
        #expect(await eventually { model.clientHangUps >= 1 }, "the model call outlived the server")
    }

    @Test(arguments: Route.allCases)
    func aCancelledAskIsAnsweredOnce(_ route: Route) async throws {
        let model = try FakeModelServer { _ in .stall(seconds: 120) }
        let client = TestClient(library: TestLibrary([makeFile([makeSnippet("Hello", triggers: ["hello"], body: "hello()")])]))
        try await client.initialize(options: ["model": ["url": .string(model.url), "timeoutSeconds": 120]])
        client.open(Self.uri, language: "plaintext", text: Self.text)
        let ask = send(route, to: client)
        #expect(await eventually { model.requests.count >= 1 }, "the ask never reached the model")
        client.notify("$/cancelRequest", ["id": .int(ask)])
        #expect(errorCode(await client.response(to: ask, timeout: .seconds(30))) == -32800)
        #expect(await client.response(to: ask, timeout: .milliseconds(200)) == nil, "a second reply")
        _ = try await client.shutdownAndExit()
    }
}

@Suite struct ModelCommandTests {
    /// Runs `snippets-lsp` in-process and returns its exit status, stdout and stderr.
    func run(_ arguments: [String], environment: [String: String] = [:]) async -> (Int32, String, String) {
        let out = LogLines()
        let err = LogLines()
        let status = await CommandLineTool.run(
            arguments: arguments, environment: environment,
            output: CommandOutput(standardOutput: { out.append($0) }, standardError: { err.append($0) }))
        return (status, out.all.joined(), err.all.joined())
    }

    var exampleLibrary: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/library").path
    }

    @Test func askUsesTheModelFlagsAndSaysWhyItFellBack() async throws {
        let server = try stagedServer { _ in .reply(status: 500, body: #"{"error":{"message":"out of memory"}}"#) }
        let (status, out, err) = await run(
            ["ask", "--library", exampleLibrary, "--model-url", server.url, "--model", "tiny", "--model-timeout", "2", "--json",
             "how do I remind a client that an invoice is overdue?"])
        #expect(status == 0)
        let result = try JSONDecoder().decode(AskResponse.self, from: Data(out.utf8))
        #expect(result.status == "fallback")
        #expect(result.reason?.code == "model-server-error")
        // The status, in the server's own sentence; the model server's words only as a fixed code on stderr.
        #expect(result.reason?.message.contains("status 500") == true, "\(String(describing: result.reason))")
        #expect(result.reason?.message.contains("out of memory") == false, "\(String(describing: result.reason))")
        #expect(err.contains("HTTP 500") && err.contains("a server error message") && !err.contains("out of memory"), "\(err)")
        #expect(server.chatRequests.first?.json["model"] as? String == "tiny")
    }

    @Test func anUnsetKeyVariableIsWarnedAboutAndTheKeyNeverPrinted() async throws {
        let server = try stagedServer { _ in .reply(status: 401, body: "{}") }
        let base = ["ask", "--library", exampleLibrary, "--model-url", server.url, "--model-key-env", "MY_KEY", "--json", "invoice overdue"]
        let (_, _, unsetErr) = await run(base)
        #expect(unsetErr.contains("MY_KEY") && unsetErr.contains("not set"))
        let (status, out, err) = await run(base, environment: ["MY_KEY": "sk-live-123456"])
        #expect(status == 0 && err.isEmpty)
        #expect(!out.contains("sk-live-123456"))
        #expect(server.chatRequests.last?.headers["authorization"] == "Bearer sk-live-123456")
        let result = try JSONDecoder().decode(AskResponse.self, from: Data(out.utf8))
        #expect(result.reason?.code == "model-auth-refused")
        #expect(result.reason?.message.contains("MY_KEY") == true)
    }

    @Test(arguments: [
        ["--model", "tiny"], ["--model-url", "localhost:8080"], ["--model-url", "http://h:1", "--model-timeout", "0"],
        ["--model-url", "http://h:1", "--model-candidates", "51"], ["--model-url", "http://h:1", "--model-key-env", "sk-123"],
    ])
    func badModelFlagsAreUsageErrors(flags: [String]) async {
        let (status, out, err) = await run(["ask", "--library", exampleLibrary] + flags + ["invoice"])
        #expect(status == 2, "\(flags)")
        #expect(out.isEmpty)
        #expect(err.contains(flags[flags.count - 2]))
    }
}
