import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// Where library text may be sent, and how far the model is trusted, are fixed at start (the command line or
/// `initializationOptions`): a settings change, which a repository's `.vscode/settings.json` or `.dir-locals.el`
/// can make, may switch the model off or lower its role, never point it elsewhere or raise it.
@Suite(.serialized) struct StartOnlyModelSettingsTests {
    static let pick = #"{"status":"answered","cited":[],"note":""}"#

    /// A client on `clientLibrary` whose server measures models, started with `options`.
    func started(_ options: JSONValue) async throws -> TestClient {
        let client = TestClient(
            library: TestLibrary([clientLibrary.files[0]]),
            environment: ["XDG_CACHE_HOME": testCacheDirectory + "/start-only-\(UUID().uuidString)"],
            configure: { $0.measuresModels = true })
        try await client.initialize(options: options)
        return client
    }

    /// The warnings shown after a settings change, read until one names `setting`.
    func warning(_ client: TestClient, naming setting: String) async -> String? {
        while let message = await client.notification("window/showMessage", timeout: .seconds(5))?["message"]?.stringValue {
            if message.contains(setting) { return message }
        }
        return nil
    }

    @Test(arguments: [true, false])
    func aSettingsChangeNeverSendsLibraryTextToAnotherURL(startedWithModel: Bool) async throws {
        let start = try stagedServer { _ in FakeModelServer.completion(Self.pick) }
        let collector = try stagedServer { _ in FakeModelServer.completion(Self.pick) }
        defer {
            start.stop()
            collector.stop()
        }
        // Advisory at start, so no measurement runs in the background and every request the start URL gets is an ask's.
        let client = try await started(
            startedWithModel ? ["model": ["url": .string(start.url), "timeoutSeconds": 5, "role": "advisory"]] : [:])
        client.notify("workspace/didChangeConfiguration", ["settings": ["snippets": ["model": [
            "url": .string(collector.url), "role": "trusted", "timeoutSeconds": 5]]]])
        #expect(await warning(client, naming: "model.url") != nil, "the user was not told the change was refused")
        let result = try await client.result("snippets/ask", ["question": .string(overdueQuestion)], timeout: .seconds(60)).decode(AskResponse.self)
        // Whatever measures in the background has had a moment to start.
        try await Task.sleep(for: .seconds(2))
        #expect(collector.requests.isEmpty, "\(collector.requests.count) requests reached the URL a settings change named")
        // Advisory as it started (forced at start, not by the change), never raised to trusted.
        #expect(result.modelRole != "trusted")
        if !startedWithModel { #expect(result.qualification?.basis != "forced") }
        if startedWithModel {
            #expect(start.chatRequests.count >= 2, "the ask did not reach the model configured at start")
        } else {
            #expect(result.modelRole == nil, "a model was added by a settings change")
        }
        // Switching the model off is always taken.
        client.notify("workspace/didChangeConfiguration", ["settings": ["snippets": ["model": .null]]])
        let before = start.chatRequests.count
        let plain = try await client.result("snippets/ask", ["question": .string(overdueQuestion)], timeout: .seconds(60)).decode(AskResponse.self)
        #expect(plain.modelRole == nil)
        #expect(start.chatRequests.count == before)
        _ = try await client.shutdownAndExit()
    }

    @Test(arguments: [
        // (role at start, role a change asks for, the role asks then get)
        ("advisory", "trusted", "advisory"),
        ("advisory", "auto", "advisory"),
        ("ignored", "advisory", "ignored"),
        ("auto", "trusted", "advisory"),
        ("advisory", "ignored", "ignored"),
        ("trusted", "advisory", "advisory"),
    ])
    func aSettingsChangeMayLowerTheRoleButNeverRaiseIt(start role: String, change: String, expected: String) async throws {
        let server = try stagedServer { _ in FakeModelServer.completion(Self.pick) }
        defer { server.stop() }
        let client = TestClient(library: TestLibrary([clientLibrary.files[0]]))
        try await client.initialize(options: ["model": ["url": .string(server.url), "role": .string(role), "timeoutSeconds": 5]])
        client.notify("workspace/didChangeConfiguration", ["settings": ["snippets": ["model": [
            "url": .string(server.url), "role": .string(change), "timeoutSeconds": 5]]]])
        let result = try await client.result("snippets/ask", ["question": .string(overdueQuestion)], timeout: .seconds(60)).decode(AskResponse.self)
        #expect(result.modelRole == expected)
        _ = try await client.shutdownAndExit()
    }
}
