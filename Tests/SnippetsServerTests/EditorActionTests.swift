import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// Ask as a code action and a command, `snippets/snippetText`, and saving a selection, through the real server
/// over a library on disk.
@Suite struct EditorActionTests {
    let directory: String
    let libraryFile: String
    let original = """
        {
          // Prose snippets.
          "Gentle payment reminder": {
            "prefix": "remind",
            "body": ["Hi ${1:name}, invoice ${2:42} is now overdue.", "Could you pay it this week?"],
            "description": "Remind a client that an invoice is overdue"
          },
          "File header": {
            "prefix": "hdr",
            "body": "// $TM_FILENAME: ${1:what it does}"
          }
        }

        """

    init() throws {
        directory = NSTemporaryDirectory() + "snippets-actions-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        libraryFile = directory + "/saved.code-snippets"
        try original.write(toFile: libraryFile, atomically: false, encoding: .utf8)
    }

    let uri = "file:///work/notes.md"

    func client(resolve: Bool = false, resolveProperties: [JSONValue] = ["edit"], document: String) async throws -> TestClient {
        let client = TestClient(diskLibrary: [directory])
        var capabilities: JSONValue = [:]
        if resolve {
            capabilities = ["textDocument": ["codeAction": ["resolveSupport": ["properties": .array(resolveProperties)]]]]
        }
        try await client.initialize(capabilities: capabilities)
        client.open(uri, language: "markdown", text: document)
        return client
    }

    /// The range from marker `start` to marker `end` of `document`, as a request's JSON.
    func range(_ document: MarkedText, _ start: String, _ end: String) -> JSONValue {
        let (from, to) = (document[start], document[end])
        return range(from.line, from.character, to.line, to.character)
    }

    func range(_ startLine: Int, _ startCharacter: Int, _ endLine: Int, _ endCharacter: Int) -> JSONValue {
        ["start": ["line": .int(startLine), "character": .int(startCharacter)], "end": ["line": .int(endLine), "character": .int(endCharacter)]]
    }

    func codeActions(_ client: TestClient, _ range: JSONValue) async throws -> [CodeAction] {
        try await client.result(
            "textDocument/codeAction",
            ["textDocument": ["uri": .string(uri)], "range": range, "context": ["diagnostics": []]]
        ).decode([CodeAction].self)
    }

    let expectedReminder = "  Hi name, invoice 42 is now overdue.\n  Could you pay it this week?"

    @Test func askOnAMarkerLineWithoutResolveSupportCarriesTheEdit() async throws {
        let document = MarkedText("# Notes\n  1️⃣??2️⃣ how do I remind a client about an overdue invoice3️⃣\n")
        let client = try await client(document: document.text)
        let actions = try await codeActions(client, range(document, "2️⃣", "2️⃣"))
        let ask = try #require(actions.first)
        #expect(ask.title == "Ask snippets: how do I remind a client about an overd…")
        #expect(actions.count == 1)  // no selection: nothing to save
        let edit = try #require(ask.edit?.changes[uri]?.first)
        #expect(edit.range == document.range("1️⃣", "3️⃣"))
        #expect("  " + edit.newText == expectedReminder)

        // The action's command shows the answer.
        let command = try #require(ask.command)
        _ = try await client.result(
            "workspace/executeCommand", ["command": .string(command.command), "arguments": .array(command.arguments ?? [])])
        let message = try #require(await client.notification("window/showMessage"))
        #expect(message["message"]?.stringValue?.contains("\"Gentle payment reminder\"") == true)
        #expect(message["type"]?.intValue == 3)
    }

    @Test(arguments: [false, true])
    func aLongSelectionIsStillOfferedForSavingButNotAsked(resolve: Bool) async throws {
        // 40 lines of 30 characters: 1,240 characters, over the 1,000 a question may have.
        let code = (0..<40).map { "let value\($0 % 10) = compute(\($0 % 10))    " }.joined(separator: "\n")
        #expect(code.unicodeScalars.count > 1000)
        let client = try await client(resolve: resolve, document: code + "\n")
        let actions = try await codeActions(client, range(0, 0, 39, 30))
        #expect(actions.map(\.title) == ["Save selection as snippet"])
        // A question on a marker line longer than that is not offered as an ask either, and costs no error.
        let long = MarkedText("1️⃣?? " + String(repeating: "invoice ", count: 130) + "\n")
        let marker = try await self.client(resolve: resolve, document: long.text)
        #expect(try await codeActions(marker, range(long, "1️⃣", "1️⃣")).isEmpty)
    }

    @Test func resolveComputesTheEditLazily() async throws {
        let document = MarkedText("1️⃣?? remind a client about an overdue invoice2️⃣")
        let client = try await client(resolve: true, document: document.text)
        let ask = try #require(try await codeActions(client, range(document, "1️⃣", "1️⃣")).first)
        #expect(ask.edit == nil)
        let resolved = try await client.result("codeAction/resolve", try JSONValue(encoding: ask)).decode(CodeAction.self)
        let edit = try #require(resolved.edit?.changes[uri]?.first)
        #expect(edit.range == document.range("1️⃣", "2️⃣"))
        #expect(edit.newText == "Hi name, invoice 42 is now overdue.\nCould you pay it this week?")
    }

    @Test func aClientThatResolvesCommandsTooGetsAnActionWithNeitherSoItResolvesIt() async throws {
        // lsp-mode (resolveSupport.properties ["edit", "command"]) resolves only an action with neither an edit nor a
        // command; one that carries its command is run as it is, without the edit.
        let document = MarkedText("1️⃣?? remind a client about an overdue invoice")
        let client = try await client(resolve: true, resolveProperties: ["edit", "command"], document: document.text)
        let ask = try #require(try await codeActions(client, range(document, "1️⃣", "1️⃣")).first)
        #expect(ask.edit == nil)
        #expect(ask.command == nil)
        let resolved = try await client.result("codeAction/resolve", try JSONValue(encoding: ask)).decode(CodeAction.self)
        #expect(resolved.edit?.changes[uri]?.first?.newText == "Hi name, invoice 42 is now overdue.\nCould you pay it this week?")
        #expect(resolved.command?.command == "snippets.ask")
    }

    /// lsp-mode 8.0 re-indents an item without `insertTextMode` through the major mode's `indent-line-function`
    /// (markdown-mode's hangs Emacs): a one-line item goes as is (1), a multi-line one adjusts (2).
    @Test func multiLineItemsSayTheirIndentationIsAdjustedAndOneLineItemsGoAsIsWhereTheClientTakesIt() async throws {
        let client = TestClient(diskLibrary: [directory])
        try await client.initialize(capabilities: [
            "textDocument": ["completion": ["completionItem": ["snippetSupport": true, "insertTextModeSupport": ["valueSet": [1, 2]]]]]
        ])
        let document = MarkedText("  remind1️⃣\n  hdr2️⃣")
        client.open(uri, language: "markdown", marked: document)
        let multiLine = try #require(try await client.complete(uri, at: document["1️⃣"]).items.first { $0.label == "remind" })
        #expect(multiLine.insertTextMode?.rawValue == 2)
        let oneLine = try #require(try await client.complete(uri, at: document["2️⃣"]).items.first { $0.label == "hdr" })
        #expect(oneLine.insertTextMode?.rawValue == 1)

        let plain = TestClient(diskLibrary: [directory])
        try await plain.initialize()
        let typed = MarkedText("remind1️⃣")
        plain.open(uri, language: "markdown", marked: typed)
        #expect(try await plain.complete(uri, at: typed["1️⃣"]).items.first?.insertTextMode == nil)
    }

    @Test func theCommandWithARangeAppliesTheEditAndShowsTheAnswer() async throws {
        let document = MarkedText("ask: 1️⃣overdue invoice reminder2️⃣")
        let client = try await client(document: document.text)
        let reply = try await client.result(
            "workspace/executeCommand",
            ["command": "snippets.ask", "arguments": [["question": "overdue invoice reminder", "textDocument": ["uri": .string(uri)], "range": range(document, "1️⃣", "2️⃣")]]])
        #expect(reply["status"]?.stringValue == "answered")
        let apply = try #require(await client.notification("workspace/applyEdit"))
        #expect(apply["edit"]?["changes"]?[uri]?.arrayValue?.first?["newText"]?.stringValue?.hasPrefix("Hi name, invoice 42") == true)
        let message = try #require(await client.notification("window/showMessage"))["message"]?.stringValue
        #expect(message?.contains("Inserted \"Gentle payment reminder\"") == true)
    }

    @Test func aQuestionWithNoMatchEditsNothingAndSaysSo() async throws {
        let document = MarkedText("1️⃣?? zebra migration patterns")
        let client = try await client(document: document.text)
        let ask = try #require(try await codeActions(client, range(document, "1️⃣", "1️⃣")).first)
        #expect(ask.edit?.changes.isEmpty == true)
        let reply = try await client.result(
            "workspace/executeCommand", ["command": "snippets.ask", "arguments": [["question": "zebra migration patterns"]]])
        #expect(reply["status"]?.stringValue == "noMatch")
        let message = try #require(await client.notification("window/showMessage"))["message"]?.stringValue
        #expect(message?.contains("zebra") == true)
    }

    @Test func snippetTextRendersByID() async throws {
        let client = try await client(document: "x")
        let ask = try await client.result("snippets/ask", ["question": "file header"])
        let id = try #require(ask["citations"]?.arrayValue?.first?["id"]?.stringValue)
        let text = try await client.result(
            "snippets/snippetText", ["id": .string(id), "textDocument": ["uri": .string(uri)], "position": ["line": 0, "character": 0]])
        #expect(text["title"]?.stringValue == "File header")
        #expect(text["snippet"]?.stringValue == "// notes.md: ${1:what it does}")
        #expect(text["text"]?.stringValue == "// notes.md: what it does")
        let missing = await client.request("snippets/snippetText", ["id": "nope"])
        guard case .failure(let error) = missing else { Issue.record("expected an error"); return }
        #expect(error.code == -32602)
    }

    // MARK: Saving

    func save(_ client: TestClient, _ range: JSONValue, trigger: String? = nil, title: String? = nil) async -> Result<JSONValue, ResponseError>? {
        var argument: [String: JSONValue] = ["textDocument": ["uri": .string(uri)], "range": range]
        if let trigger { argument["trigger"] = .string(trigger) }
        if let title { argument["title"] = .string(title) }
        return await client.request("workspace/executeCommand", ["command": "snippets.saveSelection", "arguments": [.object(argument)]])
    }

    /// Prose saved from a prose buffer is for every language: a reply saved from a `.md` note completes in a mail
    /// and a `.txt` file too. Code keeps its language.
    @Test(arguments: [
        ("markdown", nil), ("text", nil), ("plaintext", nil), ("org", nil), ("gitcommit", nil), ("mail", nil),
        ("python", "python"),
    ] as [(String, String?)])
    func savingFromAProseBufferSavesForEveryLanguage(language: String, scope: String?) async throws {
        let client = TestClient(diskLibrary: [directory])
        try await client.initialize()
        let note = "file:///work/note.\(language)"
        let selected = MarkedText("1️⃣Kind regards,\nAna2️⃣")
        client.open(note, language: language, marked: selected)
        let argument: JSONValue = ["textDocument": ["uri": .string(note)], "range": range(selected, "1️⃣", "2️⃣"), "trigger": "kr"]
        _ = try #require(await client.request("workspace/executeCommand", ["command": "snippets.saveSelection", "arguments": [argument]])).get()
        let saved = try #require(await client.server.snapshot.library.snippets.first { $0.triggers == ["kr"] })
        #expect(saved.scopes == (scope.map { [$0] } ?? []))
        let written = try String(contentsOfFile: libraryFile, encoding: .utf8)
        #expect(written.contains("\"scope\"") == (scope != nil))
        // Offered in a mail as well, when it is prose.
        let mail = MarkedText("kr1️⃣")
        client.open("file:///work/reply.eml", language: "mail", marked: mail)
        let offered = try await client.complete("file:///work/reply.eml", at: mail["1️⃣"]).items.map(\.label)
        #expect(offered.contains("kr") == (scope == nil || scope == "mail"))
    }

    @Test func aSavedSelectionIsAddedAndCompletesAtOnce() async throws {
        let document = MarkedText("1️⃣Thanks for $5, {see} you soon\nBest wishes2️⃣\n3️⃣zz4️⃣")
        let client = try await client(document: document.text)
        let actions = try await codeActions(client, range(document, "1️⃣", "2️⃣"))
        let action = try #require(actions.first { $0.title == "Save selection as snippet" })
        #expect(action.command?.command == "snippets.saveSelection")

        let reply = try #require(await save(client, range(document, "1️⃣", "2️⃣"), trigger: "thx", title: "Thanks note"))
        let result = try reply.get().decode(SaveSelectionResult.self)
        #expect(result.trigger == "thx")
        #expect(result.isInLibrary)
        let message = try #require(await client.notification("window/showMessage"))
        #expect(message["message"]?.stringValue == "Saved \"Thanks note\" (trigger thx) to \(libraryFile).")

        // Every byte that was there is kept; a comma after the last entry, then the new one in the file's indentation.
        let written = try String(contentsOfFile: libraryFile, encoding: .utf8)
        let expected = original.replacingOccurrences(of: "${1:what it does}\"\n  }\n}\n", with: """
            ${1:what it does}"
              },
              "Thanks note": {
                "prefix": "thx",
                "body": ["Thanks for \\\\$5, {see\\\\} you soon", "Best wishes"]
              }
            }

            """)
        #expect(expected != original)
        #expect(written == expected)

        // The next completion sees it, without waiting for a file watcher.
        client.notify("textDocument/didChange", [
            "textDocument": ["uri": .string(uri), "version": 2],
            "contentChanges": [["range": range(document, "3️⃣", "4️⃣"), "text": "thx"]],
        ])
        let edited = MarkedText("Thanks for $5, {see} you soon\nBest wishes\nthx1️⃣")
        let list = try await client.complete(uri, at: edited["1️⃣"])
        let item = try #require(list.items.first { $0.label == "thx" })
        guard case .textEdit(let edit) = item.textEdit else { Issue.record("expected a text edit"); return }
        #expect(edit.newText == "Thanks for $5, {see} you soon\nBest wishes")
    }

    /// A save while the first load is still being annotated (the library as read is in service meanwhile) waits for
    /// the load that reads the file after the write, and replies as soon as that one is in service.
    @Test func aSelectionSavedWhileTheFirstLoadIsStillAnnotatedIsInServiceWhenTheReplyComes() async throws {
        let gate = Gate()
        let client = TestClient(diskLibrary: [directory], firstLoadWait: .seconds(60)) { configuration in
            configuration.annotateLibrary = { loaded in
                gate.waitUntilOpen(atMost: .seconds(60))
                return LayerLoading.annotating(loaded)
            }
        }
        defer { gate.open() }
        // A client that registers completion gets its reply without waiting for the load.
        _ = try await client.result(
            "initialize", ["processId": .null, "capabilities": ["textDocument": ["completion": ["dynamicRegistration": true]]]])
        client.notify("initialized", [:])
        let document = MarkedText("1️⃣Kind regards from us2️⃣\n3️⃣zz4️⃣")
        client.open(uri, language: "markdown", marked: document)
        #expect(try await client.complete(uri, at: document["4️⃣"]).items.isEmpty)

        async let reply = save(client, range(document, "1️⃣", "2️⃣"), trigger: "kr", title: "Kind regards")
        // Once the file is written the save waits for a load; the first one's annotation is let go only then.
        let deadline = ContinuousClock.now + .seconds(20)
        while (try? String(contentsOfFile: libraryFile, encoding: .utf8))?.contains("Kind regards") != true, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        gate.open()
        let result = try #require(await reply).get().decode(SaveSelectionResult.self)
        #expect(result.isInLibrary, "the reply came before the saved snippet was in service")
        client.notify("textDocument/didChange", [
            "textDocument": ["uri": .string(uri), "version": 2],
            "contentChanges": [["range": range(document, "3️⃣", "4️⃣"), "text": "kr"]],
        ])
        let edited = MarkedText("Kind regards from us\nkr1️⃣")
        #expect(try await client.complete(uri, at: edited["1️⃣"]).items.map(\.label).contains("kr"))
    }

    @Test func derivedNamesStepAroundExistingOnes() async throws {
        let document = MarkedText("1️⃣remind me later2️⃣\n3️⃣remind me later4️⃣\n")
        let client = try await client(document: document.text)
        let first = try #require(await save(client, range(document, "1️⃣", "2️⃣"))).get().decode(SaveSelectionResult.self)
        #expect(first.title == "remind me later")
        #expect(first.trigger == "remind-me")
        let second = try #require(await save(client, range(document, "3️⃣", "4️⃣"))).get().decode(SaveSelectionResult.self)
        #expect(second.title == "remind me later 2")
        #expect(second.trigger == "remind-me2")
    }

    @Test(arguments: [
        ("remind", nil as String?, "the trigger \"remind\" is already used by \"Gentle payment reminder\""),
        ("new", "File header", "it already has a snippet titled \"File header\""),
        ("two words", nil, "a trigger cannot contain spaces"),
    ])
    func refusalsLeaveTheFileAloneAndSayWhy(trigger: String, title: String?, reason: String) async throws {
        let document = MarkedText("1️⃣some text2️⃣ to keep")
        let client = try await client(document: document.text)
        let reply = try #require(await save(client, range(document, "1️⃣", "2️⃣"), trigger: trigger, title: title))
        guard case .failure(let error) = reply else { Issue.record("expected a refusal"); return }
        #expect(error.code == -32803)
        #expect(error.message.hasPrefix("Snippet not saved: "))
        #expect(error.message.contains(reason))
        let message = try #require(await client.notification("window/showMessage"))
        #expect(message["type"]?.intValue == 1)
        #expect(message["message"]?.stringValue == error.message)
        #expect(try String(contentsOfFile: libraryFile, encoding: .utf8) == original)
    }

    @Test func aBrokenFileIsNotTouched() async throws {
        let broken = "{ \"A\": { \"prefix\": \"a\", \"body\": \"x\" }, // half-typed\n  \"B\": \n"
        try broken.write(toFile: libraryFile, atomically: false, encoding: .utf8)
        let document = MarkedText("1️⃣keep this2️⃣")
        let client = try await client(document: document.text)
        let reply = try #require(await save(client, range(document, "1️⃣", "2️⃣")))
        guard case .failure(let error) = reply else { Issue.record("expected a refusal"); return }
        #expect(error.message.contains("is not a valid snippet file"))
        #expect(try String(contentsOfFile: libraryFile, encoding: .utf8) == broken)
    }

    @Test func saveToSettingChoosesTheFileAndAMissingDirectoryIsRefused() async throws {
        let elsewhere = directory + "/more/mine.code-snippets"
        let client = TestClient(diskLibrary: [directory])
        try await client.initialize(options: ["saveTo": .string(elsewhere)])
        let document = MarkedText("1️⃣keep this2️⃣")
        client.open(uri, language: "markdown", marked: document)
        let reply = try #require(await save(client, range(document, "1️⃣", "2️⃣")))
        guard case .failure(let error) = reply else { Issue.record("expected a refusal"); return }
        #expect(error.message.contains("the directory \(directory)/more does not exist"))
        try FileManager.default.createDirectory(atPath: directory + "/more", withIntermediateDirectories: false)
        let saved = try #require(await save(client, range(document, "1️⃣", "2️⃣"))).get().decode(SaveSelectionResult.self)
        #expect(saved.path == elsewhere)
        #expect(saved.isInLibrary)  // under the library directory, so loaded
        #expect(try String(contentsOfFile: libraryFile, encoding: .utf8) == original)
    }

    @Test func askMarkerAndSaveToSettings() {
        let (settings, problems) = ServerSettings().applying(["snippets": ["askMarker": ">>", "saveTo": "~/s.code-snippets"]])
        #expect(settings.askMarker == ">>")
        #expect(settings.saveTo == "~/s.code-snippets")
        #expect(problems.isEmpty)
        let (fallback, complaints) = settings.applying(["askMarker": "  ", "saveTo": 3])
        #expect(fallback.askMarker == "??")
        #expect(fallback.saveTo == nil)
        #expect(complaints.map(\.name) == ["askMarker", "saveTo"])
        #expect(settings.applying(["saveTo": .null]).settings.saveTo == nil)
    }
}
