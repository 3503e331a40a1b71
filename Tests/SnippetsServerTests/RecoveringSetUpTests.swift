import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// Set-ups that recover: a library created while the editor runs, broken files at start, the trigger a declined
/// question is saved under.
struct RecoveringSetUpTests {
    /// Printable ASCII, written out: what a client is told when the library has no snippet at start.
    private static let printableASCII = Array(##"!"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmnopqrstuvwxyz{|}~"##)
        .map { String($0) }
    private static let punctuation = Array(##"!"#$%&'()*+,-./:;<=>?@[\]^`{|}~"##).map { String($0) }

    private func temporaryDirectory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recover-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    private func triggerCharacters(_ result: JSONValue) -> [String]? {
        result["capabilities"]?["completionProvider"]?["triggerCharacters"]?.arrayValue?.compactMap(\.stringValue)
    }

    // MARK: A library created while the editor runs

    /// Neovim cannot register completion again: what it is told at start is what it triggers on for the whole
    /// session. A missing library must not leave it with nothing.
    @Test func aLibraryMissingAtStartAdvertisesTheDefaultSetAndCompletesOnceCreated() async throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let library = root + "/snippets"
        let neovim = TestClient(diskLibrary: [library], firstLoadWait: .seconds(60))
        let result = try await neovim.initialize(clientName: "Neovim")
        #expect(triggerCharacters(result) == Self.printableASCII, "letters and digits included: Neovim triggers only on these")
        let other = TestClient(diskLibrary: [library], firstLoadWait: .seconds(60))
        #expect(triggerCharacters(try await other.initialize()) == Self.punctuation)

        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        try #"{ "Invoice reminder": { "prefix": "invrem", "body": "Invoice ${1:42} is overdue." } }"#
            .write(toFile: library + "/office.code-snippets", atomically: true, encoding: .utf8)
        neovim.notify("workspace/didChangeWatchedFiles", ["changes": []])
        #expect(try await neovim.nextLoad().hasPrefix("loaded 1 snippets"))
        neovim.open("file:///w/note.md", language: "markdown", text: "inv")
        #expect(try await neovim.complete("file:///w/note.md", line: 0, character: 3).items.map(\.label) == ["invrem"])
    }

    /// A library with snippets still advertises only its triggers' characters.
    @Test func aLibraryWithSnippetsAdvertisesItsOwnCharacters() async throws {
        let library = TestLibrary([makeFile([makeSnippet("Doctype", triggers: ["!d"], body: "<!doctype html>")])])
        let client = TestClient(library: library, firstLoadWait: .seconds(60))
        #expect(triggerCharacters(try await client.initialize(clientName: "Neovim")) == ["!", "d"])
    }

    @Test func aClientThatRegistersGetsTheDefaultSetThenTheLibrarysOwnOnceItHasSnippets() async throws {
        let library = TestLibrary()
        let client = TestClient(library: library)
        try await client.initialize(capabilities: ["textDocument": ["completion": ["dynamicRegistration": true]]])
        let first = try #require(await client.notification("client/registerCapability"))
        #expect(first["registrations"]?.arrayValue?.first?["registerOptions"]?["triggerCharacters"] == .array(Self.punctuation.map(JSONValue.string)))

        library.put(makeFile([makeSnippet("At", triggers: ["@x"], body: "@x")]))
        client.notify("workspace/didChangeWatchedFiles", ["changes": []])
        try await client.nextLoad()
        #expect(await client.notification("client/unregisterCapability") != nil)
        let again = try #require(await client.notification("client/registerCapability"))
        #expect(again["registrations"]?.arrayValue?.first?["registerOptions"]?["triggerCharacters"] == ["@"])
    }

    // MARK: Broken files at start

    private func brokenFile(_ name: String) -> SnippetFile {
        let uri = "file:///lib/\(name)"
        let error = LibraryDiagnostic(
            uri: uri, position: SourcePosition(line: 2, asciiColumn: 4), severity: .error, code: .jsonSyntax,
            message: "expected ',' or '}'")
        return makeFile([makeSnippet("Good \(name)", triggers: ["good"], body: "x", file: uri)], uri: uri, diagnostics: [error])
    }

    @Test func brokenFilesAreNamedOnceAtStartWithHowToSeeTheirProblems() async throws {
        let good = makeFile([makeSnippet("Hello", triggers: ["hello"], body: "hello()")])
        let library = TestLibrary([good, brokenFile("a.code-snippets")])
        let client = TestClient(library: library)
        try await client.initialize()
        let warning = try #require(await client.notification("window/showMessage"))
        #expect(warning["type"] == 2)
        #expect(
            warning["message"]?.stringValue
                == "snippets-lsp: 1 snippet file has errors: /lib/a.code-snippets. Its broken entries are not offered as "
                + "written. Open it to see its problems, or run `snippets-lsp check --library /lib` to list them all.")

        // The same broken file on the next reload: nothing new to say.
        client.notify("workspace/didChangeWatchedFiles", ["changes": []])
        try await client.nextLoad()
        #expect(await client.notification("window/showMessage", timeout: .milliseconds(300)) == nil)

        // Four more broken files: a new set, named up to three, the rest counted.
        for name in ["b.code-snippets", "c.code-snippets", "d.code-snippets", "e.code-snippets"] { library.put(brokenFile(name)) }
        client.notify("workspace/didChangeWatchedFiles", ["changes": []])
        try await client.nextLoad()
        let again = try #require(await client.notification("window/showMessage"))
        let message = try #require(again["message"]?.stringValue)
        #expect(message.hasPrefix("snippets-lsp: 5 snippet files have errors: /lib/a.code-snippets, /lib/b.code-snippets, /lib/c.code-snippets and 2 more. Their broken entries"))
    }

    @Test func aFileBrokenWhileOpenInTheEditorIsNotAnnouncedItsDiagnosticsShow() async throws {
        let library = TestLibrary([makeFile([makeSnippet("Hello", triggers: ["hello"], body: "hello()")])])
        let client = TestClient(library: library)
        try await client.initialize()
        client.open("file:///lib/a.code-snippets", language: "json", text: "{")
        library.put(brokenFile("a.code-snippets"))
        client.notify("workspace/didChangeWatchedFiles", ["changes": []])
        try await client.nextLoad()
        let published = try #require(await client.notification("textDocument/publishDiagnostics"))
        #expect(published["uri"] == "file:///lib/a.code-snippets")
        #expect(await client.notification("window/showMessage", timeout: .milliseconds(300)) == nil)
    }

    /// One missing comma in a language file read from disk at start: every entry still completes (none has a
    /// last good version to fall back on), and the error is published on the file at its line.
    @Test func aMissingCommaAtStartKeepsEveryEntryAndPublishesTheErrorAtItsLine() async throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let text = """
            {
              "For loop": { "prefix": "forl", "body": "for ${1:x} in ${2:xs}:\\n\\t$0" }
              "While loop": { "prefix": "whilel", "body": "while ${1:cond}:\\n\\t$0" }
            }
            """
        try text.write(toFile: root + "/python.json", atomically: true, encoding: .utf8)
        let client = TestClient(diskLibrary: [root])
        try await client.initialize()
        client.open("file:///w/a.py", language: "python", text: "whil")
        #expect(try await client.complete("file:///w/a.py", line: 0, character: 4).items.map(\.label) == ["whilel"])

        let uri = DocumentURI(filePath: root + "/python.json").stringValue
        client.open(uri, language: "jsonc", text: text)
        let published = try #require(await client.notification("textDocument/publishDiagnostics"))
        #expect(published["uri"]?.stringValue == uri)
        let diagnostics = try #require(published["diagnostics"]?.arrayValue)
        #expect(diagnostics.map { $0["code"] } == ["json-syntax"])
        #expect(diagnostics.first?["range"]?["start"] == ["line": 2, "character": 2])
        #expect(diagnostics.first?["message"] == "malformed JSON: unexpected character '\"': expected ',' or '}'")
    }

    @Test func theCheckCommandLineRepeatsEveryLayerQuotedForTheShell() {
        let paths = LibraryPaths(
            layers: [LibraryLayer(path: "/home/me/snippets"), LibraryLayer(path: "/srv/team's snippets", name: "team")],
            source: .setting)
        #expect(paths.commandLine("check") == #"snippets-lsp check --library /home/me/snippets --library 'team=/srv/team'\''s snippets'"#)
    }

    // MARK: Saving a declined question

    @Test func aDeclinedQuestionsTriggerComesFromItsRarestContentWords() {
        // Stop words and question words never make a trigger; among the rest the rarest two, in the question's order.
        let frequencies = ["send": 40, "invoice": 3, "reminder": 5, "client": 12]
        let trigger = SaveSelection.derivedTrigger(forQuestion: "How do I send a client an invoice reminder?") { frequencies[$0] ?? 0 }
        #expect(trigger == "invoice-reminder")
        #expect(SaveSelection.derivedTrigger(forQuestion: "how do I bake sourdough bread") { _ in 0 } == "bake-sourdough")
        #expect(SaveSelection.derivedTrigger(forQuestion: "how do I bake sourdough bread") { $0 == "bake" ? 9 : 0 } == "sourdough-bread")
        #expect(SaveSelection.derivedTrigger(forQuestion: "what is 2024?") { _ in 0 } == "saved")
        #expect(SaveSelection.derivedTrigger(forQuestion: "how do I?") { _ in 0 } == "saved")
    }

    private func saveQuestion(
        _ client: TestClient, _ question: String, uri: String, trigger: String? = nil, preview: Bool = false
    ) async throws -> SaveSelectionResult {
        let empty: JSONValue = ["start": ["line": 0, "character": 0], "end": ["line": 0, "character": 0]]
        var argument: [String: JSONValue] = ["textDocument": ["uri": .string(uri)], "range": empty, "description": .string(question)]
        if let trigger { argument["trigger"] = .string(trigger) }
        if preview { argument["preview"] = true }
        return try await client.result(
            "workspace/executeCommand", ["command": "snippets.saveSelection", "arguments": [.object(argument)]]
        ).decode(SaveSelectionResult.self)
    }

    /// A snippet saved for a declined question holds nothing yet (its body is `$0`): a client that can show a
    /// document is taken to that body to write it, the message says where it is, and the question leaves the gaps.
    @Test func aQuestionSavedAsASnippetIsOpenedAtItsEmptyBodyAndLeavesTheGaps() async throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let library = root + "/library"
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        try #"{ "Send invoice": { "prefix": "sendinv", "body": "Please find the invoice attached." } }"#
            .write(toFile: library + "/office.code-snippets", atomically: true, encoding: .utf8)
        let gaps = GapLog(environment: ["XDG_STATE_HOME": root + "/state"])
        let client = TestClient(diskLibrary: [library]) { $0.environment = ["XDG_STATE_HOME": root + "/state"] }
        try await client.initialize(capabilities: ["window": ["showDocument": ["support": true]]])
        let uri = "file:///work/notes.md"
        client.open(uri, language: "markdown", text: "")
        let question = "how do I bake sourdough bread"
        #expect(try await client.result("snippets/ask", ["question": .string(question)])["status"] == "noMatch")
        #expect(gaps.gaps().map(\.question) == [question])

        let saved = try await saveQuestion(client, question, uri: uri)
        let message = try #require(await client.notification("window/showMessage")?["message"]?.stringValue)
        let show = try #require(await client.notification("window/showDocument"))
        #expect(show["uri"]?.stringValue == DocumentURI(filePath: saved.path).stringValue)
        #expect(show["takeFocus"] == true)
        let selection = try #require(try show["selection"]?.decode(LSPRange.self))
        let lines = try String(contentsOfFile: saved.path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let line = Array(lines[selection.start.line].utf16)
        #expect(selection.end.line == selection.start.line)
        #expect(String(decoding: line[selection.start.character..<selection.end.character], as: UTF16.self) == "$0")
        #expect(message.hasPrefix("Saved \"\(saved.title)\" (trigger \(saved.trigger)) to \(saved.path)."))
        #expect(message.hasSuffix(" Its body is empty: it is open at line \(selection.start.line + 1), to write what the question asks for."))
        #expect(gaps.gaps().isEmpty, "a question with a snippet saved for it is no longer a gap")

        // A client that cannot show a document is told where to write it.
        let plain = TestClient(diskLibrary: [library]) { $0.environment = ["XDG_STATE_HOME": root + "/state"] }
        try await plain.initialize()
        plain.open(uri, language: "markdown", text: "")
        let other = try await saveQuestion(plain, "how do I water the ferns", uri: uri)
        let told = try #require(await plain.notification("window/showMessage")?["message"]?.stringValue)
        let place = " Its body is empty: write what the question asks for at \(other.path):"
        let number = told.components(separatedBy: place).last.flatMap { Int($0.dropLast()) }
        #expect(told.contains(place) && told.hasSuffix("."), "\(told)")
        let written = try String(contentsOfFile: other.path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(number.map { written[$0 - 1].contains("\"$0\"") } == true, "line \(String(describing: number)) of \(written)")
        #expect(number.map { $0 - 1 > selection.start.line } == true, "the second entry's body, not the first's")
        #expect(await plain.notification("window/showDocument", timeout: .milliseconds(200)) == nil)
    }

    @Test func savingDeclinedQuestionsGivesTriggersThatDoNotPopUpOnHow() async throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try #"{ "Send invoice": { "prefix": "sendinv", "body": "Please find the invoice attached.", "description": "send an invoice" } }"#
            .write(toFile: root + "/office.code-snippets", atomically: true, encoding: .utf8)
        let client = TestClient(diskLibrary: [root])
        try await client.initialize()
        let uri = "file:///work/notes.md"
        client.open(uri, language: "markdown", text: "how\n")

        // An editor that prompts asks for the names first: nothing is written, nothing is said.
        let preview = try await saveQuestion(client, "how do I send an invoice reminder", uri: uri, preview: true)
        #expect(preview.trigger == "invoice-reminder")
        #expect(preview.path == root + "/saved.code-snippets")
        #expect(!FileManager.default.fileExists(atPath: root + "/saved.code-snippets"))
        #expect(await client.notification("window/showMessage", timeout: .milliseconds(200)) == nil)

        let first = try await saveQuestion(client, "how do I send an invoice reminder", uri: uri)
        #expect(first.trigger == "invoice-reminder")
        let second = try await saveQuestion(client, "how do I bake sourdough bread", uri: uri, trigger: "bread")
        #expect(second.trigger == "bread")
        // Typing "how" offers neither.
        let list = try await client.complete(uri, line: 0, character: 3)
        #expect(list.items.isEmpty, "offered \(list.items.map(\.label))")
    }
}
