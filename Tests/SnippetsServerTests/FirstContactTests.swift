import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

private let completionRegistration: JSONValue = ["textDocument": ["completion": ["dynamicRegistration": true]]]

/// A new user's first minute: requests sent while the library loads, trigger characters, a library path that
/// does not exist, `~` in the `libraries` setting.
struct FirstContactTests {
    /// Sends `initialize` (and `initialized`) without waiting for the first load, as an editor does.
    private func start(_ client: TestClient, capabilities: JSONValue = [:], options: JSONValue? = nil) async throws -> JSONValue {
        var params: [String: JSONValue] = ["processId": .null, "capabilities": capabilities]
        if let options { params["initializationOptions"] = options }
        let result = try await client.result("initialize", .object(params))
        client.notify("initialized", [:])
        return result
    }

    private func completionParams(_ uri: String, character: Int) -> JSONValue {
        ["textDocument": ["uri": .string(uri)], "position": ["line": 0, "character": .int(character)]]
    }

    @Test func aCompletionSentWhileTheLibraryLoadsWaitsForItInsteadOfAnsweringAFinalEmptyList() async throws {
        let library = TestLibrary([makeFile([makeSnippet("Hello", triggers: ["hello"], body: "hello()")])])
        library.setLoadDelay(.milliseconds(400))
        // The wait is generous so that a loaded machine cannot make the 400 ms load outlast it.
        let client = TestClient(library: library, firstLoadWait: .seconds(60))
        // A client that registers completion later gets its `initialize` reply at once, before the load ends.
        _ = try await start(client, capabilities: completionRegistration)
        client.open("file:///w/a.txt", language: "plaintext", text: "hel")
        let list = try await client.complete("file:///w/a.txt", line: 0, character: 3)
        #expect(list.items.map(\.label) == ["hello"])
        let ask = try await client.result("snippets/ask", ["question": "hello"])
        #expect(ask["status"] == "answered")
    }

    @Test func aLoadSlowerThanTheWaitGetsAnIncompleteListAndTheStillLoadingError() async throws {
        let library = TestLibrary([makeFile([makeSnippet("Hello", triggers: ["hello"], body: "hello()")])])
        // A load far slower than the wait, so that a loaded machine (the whole suite runs in parallel) cannot finish
        // it before the completion below is asked.
        // (A full run on two cores has kept a test off the cooperative pool for 20 s.)
        library.setLoadDelay(.seconds(30))
        let client = TestClient(library: library, firstLoadWait: .milliseconds(100))
        _ = try await start(client, capabilities: completionRegistration)
        client.open("file:///w/a.txt", language: "plaintext", text: "hel")
        let list = try await client.complete("file:///w/a.txt", line: 0, character: 3)
        #expect(list.items.isEmpty)
        #expect(list.isIncomplete, "a final empty list would be cached by the client")
        let ask = await client.request("snippets/ask", ["question": "hello"])
        guard case .failure(let error) = ask else {
            Issue.record("ask about an unread library answered \(String(describing: ask))")
            return
        }
        #expect(error.code == -32803)
        #expect(error.message.contains("still loading"))
        // Once loaded, the same request finds the snippet.
        try await client.nextLoad(timeout: .seconds(60))
        #expect(try await client.complete("file:///w/a.txt", line: 0, character: 3).items.map(\.label) == ["hello"])
    }

    /// What is learned from the whole library (conflicts, revisions) grows with it; the first load serves
    /// completion and ask before that is done, and its diagnostics follow.
    @Test func theFirstLoadServesBeforeTheLibraryIsAnnotated() async throws {
        let library = TestLibrary([
            makeFile(
                [makeSnippet("Hello", triggers: ["hello"], body: "hello()", file: "file:///lib/a.code-snippets")],
                uri: "file:///lib/a.code-snippets"),
            makeFile(
                [makeSnippet("Hello again", triggers: ["hello"], body: "hi()", file: "file:///lib/b.code-snippets")],
                uri: "file:///lib/b.code-snippets"),
        ])
        let gate = Gate()
        let annotations = Counter()
        let client = TestClient(library: library, firstLoadWait: .seconds(60)) { configuration in
            configuration.annotateLibrary = { loaded in
                _ = annotations.next()
                gate.waitUntilOpen(atMost: .seconds(60))
                return LibraryConflicts.annotating(loaded)
            }
        }
        defer { gate.open() }
        _ = try await start(client, capabilities: completionRegistration)
        client.open("file:///w/a.txt", language: "plaintext", text: "hel")
        let list = try await client.complete("file:///w/a.txt", line: 0, character: 3)
        #expect(list.items.map(\.label) == ["hello", "hello"])
        #expect(!list.isIncomplete)
        let ask = try await client.result("snippets/ask", ["question": "hello"])
        #expect(ask["status"] == "answered")
        #expect(annotations.count == 1, "the annotation had started and was still held")

        gate.open()
        let loaded = try await client.nextLoad()
        #expect(loaded.hasPrefix("loaded 2 snippets"))
        client.open("file:///lib/b.code-snippets", language: "json", text: "{}")
        let published = try #require(await client.notification("textDocument/publishDiagnostics"))
        #expect(published["diagnostics"]?.arrayValue?.contains { $0["code"] == "trigger-conflict" } == true)
        #expect(annotations.count == 1, "one annotation per load")
    }

    /// The trigger characters, counted byte by byte for ASCII triggers, are exactly what counting characters gives:
    /// a combining mark after an ASCII letter makes one character, control characters and white space never count.
    @Test func triggerCharactersCountWholeCharacters() {
        let triggers = ["!doc", "#inc", "e\u{301}t", "a\r\nb", "tab\tx", "d\u{7F}", "zw\u{200B}j", "😀x", "ü-ü", "__init", "::", "@@"]
        let library = SnippetLibrary(files: [makeFile(triggers.enumerated().map { number, trigger in
            makeSnippet("S\(number)", triggers: [trigger, trigger + "!"], body: "x")
        })])
        for words in [false, true] {
            var counts: [Character: Int] = [:]
            for trigger in triggers.flatMap({ [$0, $0 + "!"] }) {
                for character in trigger where !character.isWhitespace {
                    let first = character.unicodeScalars.first!
                    guard first.value >= 0x20, first.value != 0x7F, !first.properties.isDefaultIgnorableCodePoint else { continue }
                    if !words && TypedPrefix.isWordCharacter(character) { continue }
                    counts[character, default: 0] += 1
                }
            }
            let expected = counts.keys.map { String($0) }.sorted()
            #expect(TriggerCharacters.of(library, includingWordCharacters: words) == expected, "words: \(words)")
        }
        #expect(TriggerCharacters.of(library, includingWordCharacters: true).contains("e\u{301}"))
        #expect(!TriggerCharacters.of(library, includingWordCharacters: true).contains("e"))
    }

    @Test func initializeAdvertisesTheCharactersOfTheLibrarysTriggers() async throws {
        let library = TestLibrary([
            makeFile([
                makeSnippet("Doctype", triggers: ["!doc"], body: "<!doctype html>"),
                makeSnippet("Include", triggers: ["#inc"], body: "#include <$1>"),
                makeSnippet("Function", triggers: ["fn"], body: "fn $1() {}"),
            ])
        ])
        // A generous first-load wait: on a loaded machine the 2 s default can pass, and the reply then (rightly)
        // advertises the fallback set instead of the library's.
        let client = TestClient(library: library, firstLoadWait: .seconds(60))
        let result = try await client.initialize()
        let characters = try #require(result["capabilities"]?["completionProvider"]?["triggerCharacters"]?.arrayValue)
        // Letters would make lsp-mode complete a typed word from an empty prefix; clients complete words anyway.
        #expect(characters == ["!", "#"])
        // Neovim completes as you type only on trigger characters, so it gets the letters too.
        let neovim = TestClient(library: library, firstLoadWait: .seconds(60))
        let neovimResult = try await neovim.initialize(clientName: "Neovim")
        let all = neovimResult["capabilities"]?["completionProvider"]?["triggerCharacters"]?.arrayValue ?? []
        #expect(Set(all.compactMap(\.stringValue)) == ["!", "#", "c", "d", "f", "i", "n", "o"])
        #expect(result["capabilities"]?["completionProvider"]?["resolveProvider"] == true)
        #expect(result["serverInfo"]?["version"]?.stringValue == LanguageServer.serverVersion)
        // Typing the first character of a non-word trigger offers it.
        client.open("file:///w/a.html", language: "html", text: "!")
        #expect(try await client.complete("file:///w/a.html", line: 0, character: 1).items.map(\.label) == ["!doc"])
    }

    @Test func aClientThatRegistersCompletionGetsTheTriggerCharactersByRegistrationAndAgainOnReload() async throws {
        let library = TestLibrary([makeFile([makeSnippet("Doctype", triggers: ["!d"], body: "<!doctype html>")])])
        let client = TestClient(library: library)
        let result = try await start(client, capabilities: completionRegistration)
        #expect(result["capabilities"]?["completionProvider"] == nil, "a static provider too would answer twice")
        let registration = try #require(await client.notification("client/registerCapability"))
        let registered = try #require(registration["registrations"]?.arrayValue?.first)
        #expect(registered["method"] == "textDocument/completion")
        #expect(registered["registerOptions"]?["triggerCharacters"] == ["!"])

        library.put(makeFile([makeSnippet("At", triggers: ["@x"], body: "@x")]))
        client.notify("workspace/didChangeWatchedFiles", ["changes": []])
        try await client.nextLoad()
        let unregistration = try #require(await client.notification("client/unregisterCapability"))
        #expect(unregistration["unregisterations"]?.arrayValue?.first?["id"] == registered["id"])
        let again = try #require(await client.notification("client/registerCapability"))
        #expect(again["registrations"]?.arrayValue?.first?["registerOptions"]?["triggerCharacters"] == ["@"])
    }

    @Test func aMissingLibraryPathIsShownOnceNamingThePathAndWhatToDoAndStaysADiagnostic() async throws {
        let missing = "/nonexistent-\(UUID().uuidString)/snippets"
        let client = TestClient(diskLibrary: [missing])
        try await client.initialize()
        let warning = try #require(await client.notification("window/showMessage"))
        #expect(warning["type"] == 2)
        let message = try #require(warning["message"]?.stringValue)
        #expect(message.contains("'\(missing)' does not exist"))
        #expect(message.contains("Create it"))
        #expect(message.contains("snippets-lsp doctor"))
        let diagnostics = try #require(await client.notification("textDocument/publishDiagnostics"))
        #expect(diagnostics["uri"]?.stringValue == DocumentURI(filePath: missing).stringValue)
        #expect(diagnostics["diagnostics"]?.arrayValue?.first?["message"]?.stringValue?.contains("does not exist") == true)
        // Asking says the library could not be read, naming the path.
        let ask = try await client.result("snippets/ask", ["question": "invoice reminder"])
        #expect(ask["status"] == "libraryUnreadable")
        #expect(ask["reason"]?["message"]?.stringValue?.contains(missing) == true)
        // Told once: a reload does not repeat the warning.
        client.notify("workspace/didChangeWatchedFiles", ["changes": []])
        try await client.nextLoad()
        #expect(await client.notification("window/showMessage", timeout: .milliseconds(300)) == nil)
    }

    @Test func tildeInTheLibrariesSettingResolvesAgainstHOMELikeTheCommandLine() async throws {
        let library = TestLibrary()
        let environment = ["HOME": "/home/tester"]
        let client = TestClient(library: library, environment: environment)
        try await client.initialize(options: ["libraries": ["~/notes/snippets", "~"]])
        #expect(library.pathsLoaded.last == ["/home/tester/notes/snippets", "/home/tester"])
        let flags = LibraryPaths.resolve(flags: ["~/notes/snippets", "~"], environment: environment, currentDirectory: "/cwd")
        #expect(flags.paths == library.pathsLoaded.last)
        #expect(LibraryPaths.absolute("~/saved.code-snippets", environment: environment) == "/home/tester/saved.code-snippets")
    }
}

/// A gate a background thread waits at until a test opens it.
final class Gate: Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var isOpen = false

    func open() { lock.withLock { isOpen = true } }

    /// Blocks the calling thread until the gate is open or `limit` has passed.
    func waitUntilOpen(atMost limit: Duration) {
        let deadline = ContinuousClock.now + limit
        while !lock.withLock({ isOpen }), ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
    }
}
