import Foundation
import SnippetsCore
import Testing

@testable import SnippetsModelClient
@testable import SnippetsServer

/// A model server that sends more than any chat completion could be: the reply is cut off at
/// `ModelHTTP.maximumReplyBytes` (the server used to hold a whole gigabyte-sized reply until the deadline).
@Suite struct ModelHostileReplyTests {
    @Test func aReplyOverTheLimitIsCutOffAsASchemaMismatch() async throws {
        let huge = String(repeating: "a", count: ModelHTTP.maximumReplyBytes + 1024)
        // The server keeps the connection open after its reply, longer than the call's 60 s deadline.
        let server = try FakeModelServer { request in
            request.path == "/props" ? props(4096) : .thenStall(FakeModelServer.completion(huge), seconds: 300)
        }
        let error = await fault { () throws(AskModelError) in try await client(server, timeout: 60).searchWords(question: "q") }
        #expect(error?.reasonCode == .modelSchemaMismatch, "\(String(describing: error))")
        #expect(error?.description.contains("longer than 4 MB") == true, "\(String(describing: error))")
        // By order and outcome: the cut-off returned while the server still held the connection open (a call that
        // waited for its 60 s deadline would have ended as a timeout, not a mismatch).
        #expect(server.stallsRunOut == 0, "the cut-off waited for the server to close")
        server.stop()
    }

    @Test func aReplyJustUnderTheLimitIsStillRead() async throws {
        let words = #"{"words":["invoice"]}"#
        let padding = String(repeating: " ", count: ModelHTTP.maximumReplyBytes - 4096)
        let server = try FakeModelServer { request in
            request.path == "/props" ? props(4096) : FakeModelServer.completion(words + padding)
        }
        let model = client(server, timeout: 20)
        let result = try await model.searchWords(question: "how do I chase an overdue invoice?")
        #expect(result.contains("invoice"))
    }

    /// A Swift task cancelled before its request starts gets `.cancelled` at once, and nothing reaches the server.
    @Test func aRequestWhoseTaskIsAlreadyCancelledIsNeverSent() async throws {
        let server = try FakeModelServer { _ in FakeModelServer.completion(#"{"words":["invoice"]}"#) }
        let request = HTTPRequest(url: URL(string: server.url + "/v1/chat/completions")!, method: "POST")
        let outcome = await Task { () -> Result<HTTPReply, any Error> in
            withUnsafeCurrentTask { $0?.cancel() }
            do { return .success(try await ModelHTTP.send(request)) } catch { return .failure(error) }
        }.value
        guard case .failure(let error) = outcome else { Issue.record("the request was answered: \(outcome)"); return }
        #expect((error as? URLError)?.code == .cancelled, "\(error)")
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(server.requests.isEmpty, "the cancelled request reached the server")
    }

    /// A key pasted where the variable's name belongs (and made of name characters) is not repeated in the 401 hint;
    /// a variable that really holds a key is named.
    @Test func theAuthHintNamesOnlyAVariableThatHoldsAKey() async throws {
        let pasted = "sk_live_51HxQpZ2eKeyPastedAsName"
        let server = try FakeModelServer { _ in .reply(status: 401, body: "{}") }
        let unset = await fault { () throws(AskModelError) in
            try await client(server, keyVariable: pasted).searchWords(question: "q")
        }
        #expect(unset?.reasonCode == .modelAuthRefused)
        #expect(unset.map { !String(describing: $0).contains(pasted) } == true, "\(String(describing: unset))")
        let set = await fault { () throws(AskModelError) in
            try await client(server, keyVariable: "MY_KEY", environment: ["MY_KEY": "k-123"]).searchWords(question: "q")
        }
        #expect(set.map { String(describing: $0).contains("$MY_KEY") } == true, "\(String(describing: set))")
    }

    /// The unset-variable warnings name a conventional variable name, never a value that looks like a pasted key.
    @Test func unsetKeyVariableWarningsDoNotRepeatAPastedKey() throws {
        let pasted = "sk_live_51HxQpZ2eKeyPastedAsName"
        for (variable, named) in [(pasted, false), ("OPENAI_API_KEY", true)] {
            let configuration = ModelConfiguration(baseURL: URL(string: "http://127.0.0.1:9")!, apiKeyEnvironmentVariable: variable)
            let warnings = ModelOptions.warnings(for: configuration, environment: [:])
                + ModelSettings.environmentProblems(configuration, environment: [:]).map(\.message)
            #expect(warnings.count == 2)
            #expect(warnings.allSatisfy { $0.contains(variable) == named }, "\(warnings)")
        }
    }
}
