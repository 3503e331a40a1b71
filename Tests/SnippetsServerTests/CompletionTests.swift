import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

private let snippetCapabilities: JSONValue = ["textDocument": ["completion": ["completionItem": ["snippetSupport": true]]]]

private func capabilities(snippets: Bool = true, insertReplace: Bool = false, encodings: [String] = []) -> JSONValue {
    var capabilities: [String: JSONValue] = [
        "textDocument": ["completion": ["completionItem": ["snippetSupport": .bool(snippets), "insertReplaceSupport": .bool(insertReplace)]]]
    ]
    if !encodings.isEmpty { capabilities["general"] = ["positionEncodings": .array(encodings.map { .string($0) })] }
    return .object(capabilities)
}

private let library = TestLibrary([
    makeFile([
        makeSnippet("For loop", triggers: ["for"], body: "for ${1:item} in ${2:items} {\n\t$0\n}", scopes: ["swift"], description: "Loops over a sequence.", line: 4),
        makeSnippet("Python for", triggers: ["for"], body: "for ${1:x} in ${2:xs}:\n\t$0", scopes: ["python"]),
        makeSnippet("Todo comment", triggers: ["todo"], body: "// TODO: $1"),
        makeSnippet("Print debug value", triggers: ["pd"], body: "print(\"debug\", $1)", scopes: ["swift"]),
        makeSnippet("Doc comment", triggers: ["///"], body: "/// ${1:Summary}", scopes: ["swift"]),
        makeSnippet("Function", triggers: ["fn", "func"], body: "func ${1:name}() {\n\t$0\n}", scopes: ["swift"]),
        makeSnippet("Greeting", triggers: ["привет"], body: "Привет, ${1:мир}!"),
        makeSnippet("Shebang", triggers: [], body: "#!/usr/bin/env swift", scopes: ["swift"]),
    ]),
])

/// Completions as the editor shows and inserts them.
struct CompletionTests {
    @Test func offersTheLanguagesSnippetForTheTypedTrigger() async throws {
        let client = TestClient(library: library)
        try await client.initialize(capabilities: snippetCapabilities)
        let document = MarkedText("    1️⃣fo2️⃣")
        client.open("file:///w/a.swift", language: "swift", marked: document)
        let list = try await client.complete("file:///w/a.swift", at: document["2️⃣"])
        let item = try #require(list.items.first)
        #expect(item.label == "for")
        #expect(item.detail == "For loop")
        #expect(item.kind.rawValue == 15)
        #expect(item.insertTextFormat?.rawValue == 2)
        #expect(item.sortText == "00000")
        #expect(item.filterText == "for")
        #expect(item.textEdit == .textEdit(TextEdit(
            range: document.range("1️⃣", "2️⃣"),
            newText: "for ${1:item} in ${2:items} {\n\t$0\n\\}")))
        // The Python snippet with the same trigger is not offered in a Swift file.
        #expect(!list.items.contains { $0.detail == "Python for" })
        #expect(!list.isIncomplete)
    }

    @Test func plainTextWhenTheClientHasNoSnippetSupport() async throws {
        let client = TestClient(library: library)
        try await client.initialize(capabilities: capabilities(snippets: false))
        let document = MarkedText("for1️⃣")
        client.open("file:///w/a.swift", language: "swift", marked: document)
        let item = try #require(try await client.complete("file:///w/a.swift", at: document["1️⃣"]).items.first)
        #expect(item.insertTextFormat?.rawValue == 1)
        if case .textEdit(let edit) = item.textEdit {
            #expect(edit.newText == "for item in items {\n\t\n}")
        } else {
            Issue.record("expected a plain TextEdit, got \(String(describing: item.textEdit))")
        }
    }

    @Test func insertReplaceEditWhenDeclaredReplacesTheWholeWord() async throws {
        let client = TestClient(library: library)
        try await client.initialize(capabilities: capabilities(insertReplace: true))
        let document = MarkedText("x 1️⃣fo2️⃣😀rest")
        client.open("file:///w/a.swift", language: "swift", marked: document)
        // Cursor after "fo": inserting replaces "fo", replacing also eats "rest"? No: the emoji stops the word.
        let list = try await client.complete("file:///w/a.swift", at: document["2️⃣"])
        let item = try #require(list.items.first { $0.label == "for" })
        guard case .insertReplace(let edit) = item.textEdit else {
            Issue.record("expected an InsertReplaceEdit")
            return
        }
        #expect(edit.insert == document.range("1️⃣", "2️⃣"))
        #expect(edit.replace == document.range("1️⃣", "2️⃣"))

        let word = MarkedText("fo1️⃣rxyz2️⃣")
        client.open("file:///w/b.swift", language: "swift", marked: word)
        let second = try await client.complete("file:///w/b.swift", at: word["1️⃣"])
        guard case .insertReplace(let wordEdit) = try #require(second.items.first { $0.label == "for" }).textEdit else {
            Issue.record("expected an InsertReplaceEdit")
            return
        }
        #expect(wordEdit.insert.end == word["1️⃣"])
        #expect(wordEdit.replace.end == word["2️⃣"])
    }

    @Test(arguments: ["utf-16", "utf-8", "utf-32"])
    func rangesOnNonASCIILinesCountTheNegotiatedUnits(encodingName: String) async throws {
        let encoding = try #require(PositionEncoding(rawValue: encodingName))
        let client = TestClient(library: library)
        try await client.initialize(capabilities: capabilities(encodings: [encodingName]))
        let document = MarkedText("line one\n😀 Привет 漢字 e\u{301} 1️⃣при2️⃣")
        client.open("file:///w/a.swift", language: "swift", marked: document)
        let list = try await client.complete("file:///w/a.swift", at: document.position("2️⃣", in: encoding))
        let item = try #require(list.items.first { $0.label == "привет" })
        guard case .textEdit(let edit) = item.textEdit else {
            Issue.record("expected a TextEdit")
            return
        }
        #expect(edit.range == document.range("1️⃣", "2️⃣", in: encoding))
    }

    @Test func nonWordTriggersUseTheWholeRunBeforeTheCursor() async throws {
        let client = TestClient(library: library)
        try await client.initialize(capabilities: snippetCapabilities)
        let document = MarkedText("    1️⃣///2️⃣")
        client.open("file:///w/a.swift", language: "swift", marked: document)
        let item = try #require(try await client.complete("file:///w/a.swift", at: document["2️⃣"]).items.first)
        #expect(item.label == "///")
        guard case .textEdit(let edit) = item.textEdit else {
            Issue.record("expected a TextEdit")
            return
        }
        #expect(edit.range == document.range("1️⃣", "2️⃣"))
    }

    @Test func titleMatchesKeepTheTypedTextInFilterText() async throws {
        let client = TestClient(library: library)
        try await client.initialize(capabilities: snippetCapabilities)
        let document = MarkedText("debug1️⃣")
        client.open("file:///w/a.swift", language: "swift", marked: document)
        let item = try #require(try await client.complete("file:///w/a.swift", at: document["1️⃣"]).items.first { $0.label == "pd" })
        #expect(item.filterText == "debug pd")
        #expect(item.detail == "Print debug value")
    }

    @Test func neovimGetsNoFilterTextItWouldShowAsTypedButKeepsTheItem() async throws {
        // Neovim's built-in completion makes a filter text that does not match the typed word the item's word, and
        // inserts it while the user moves through the menu: "debug pd" would appear in the buffer.
        let client = TestClient(library: library)
        try await client.initialize(capabilities: snippetCapabilities, clientName: "Neovim")
        let typed = MarkedText("debug1️⃣")
        client.open("file:///w/a.swift", language: "swift", marked: typed)
        let items = try await client.complete("file:///w/a.swift", at: typed["1️⃣"]).items
        let item = try #require(items.first { $0.label == "pd" })
        #expect(item.filterText == nil)
        let prefix = MarkedText("fu1️⃣")
        client.open("file:///w/b.swift", language: "swift", marked: prefix)
        let function = try #require(try await client.complete("file:///w/b.swift", at: prefix["1️⃣"]).items.first)
        #expect(function.label == "func")
        #expect(function.filterText == "func")
    }

    @Test func severalTriggersShowTheBestMatchingOneAndNoTriggerShowsTheTitle() async throws {
        let client = TestClient(library: library)
        try await client.initialize(capabilities: snippetCapabilities)
        let document = MarkedText("fun1️⃣\nshebang2️⃣")
        client.open("file:///w/a.swift", language: "swift", marked: document)
        let functions = try await client.complete("file:///w/a.swift", at: document["1️⃣"]).items
        #expect(functions.filter { $0.detail == "Function" }.map(\.label) == ["func"])
        let titled = try await client.complete("file:///w/a.swift", at: document["2️⃣"]).items
        #expect(titled.contains { $0.label == "Shebang" })
    }

    @Test func listIsCutAtTheConfiguredMaximumAndMarkedIncomplete() async throws {
        let many = TestLibrary([makeFile((1...5).map { makeSnippet("Log \($0)", triggers: ["log\($0)"], body: "log(\($0))") })])
        let client = TestClient(library: many)
        try await client.initialize(capabilities: snippetCapabilities, options: ["maxCompletionItems": 3])
        let document = MarkedText("log1️⃣")
        client.open("file:///w/a.txt", language: "plaintext", marked: document)
        let cut = try await client.complete("file:///w/a.txt", at: document["1️⃣"])
        #expect(cut.items.count == 3)
        #expect(cut.isIncomplete)
        #expect(cut.items.map(\.sortText) == ["00000", "00001", "00002"])

        client.notify("workspace/didChangeConfiguration", ["settings": ["snippets": ["maxCompletionItems": 10]]])
        let whole = try await client.complete("file:///w/a.txt", at: document["1️⃣"])
        #expect(whole.items.count == 5)
        #expect(!whole.isIncomplete)
    }

    @Test func resolveAddsPreviewDescriptionAndSourceLine() async throws {
        let client = TestClient(library: library)
        let resolving: JSONValue = ["textDocument": ["completion": ["completionItem": [
            "snippetSupport": true, "resolveSupport": ["properties": ["documentation", "detail"]],
        ]]]]
        try await client.initialize(capabilities: resolving)
        let document = MarkedText("for1️⃣")
        client.open("file:///w/a.swift", language: "swift", marked: document)
        let item = try #require(try await client.complete("file:///w/a.swift", at: document["1️⃣"]).items.first)
        #expect(item.documentation == nil)
        let resolved = try await client.result("completionItem/resolve", try JSONValue(encoding: item)).decode(CompletionItem.self)
        let markdown = try #require(resolved.documentation)
        #expect(markdown.kind == "markdown")
        #expect(markdown.value.contains("```swift"))
        #expect(markdown.value.contains("for item in items {"))
        #expect(markdown.value.contains("Loops over a sequence."))
        #expect(markdown.value.contains("/lib/test.code-snippets:5"))
    }

    /// Neovim 0.12's built-in completion resolves no documentation and fills its info popup from the item as sent:
    /// a client that does not list `documentation` among the properties it resolves gets a preview with each item.
    @Test func itemsCarryAPreviewToClientsThatDoNotResolveDocumentation() async throws {
        let long = (1...30).map { "Line \($0) of the letter, with more words, ${\($0):field}." }.joined(separator: "\n")
        let letters = TestLibrary([makeFile(
            [makeSnippet("Overdue invoice reminder", triggers: ["overdue"], body: "Hi ${1:name},\ninvoice ${2:42} is overdue.", description: "Chase an unpaid invoice", line: 2)]
                + (1...40).map { makeSnippet("Letter \($0)", triggers: ["letter\($0)"], body: long) })])
        let client = TestClient(library: letters)
        // Neovim 0.12's own completion capabilities: it resolves only these two.
        let neovim: JSONValue = ["textDocument": ["completion": ["completionItem": [
            "snippetSupport": true, "resolveSupport": ["properties": ["additionalTextEdits", "command"]],
        ]]]]
        try await client.initialize(capabilities: neovim, clientName: "Neovim")
        let note = MarkedText("overdue1️⃣\nletter2️⃣")
        client.open("file:///w/note.md", language: "markdown", marked: note)
        let overdue = try #require(try await client.complete("file:///w/note.md", at: note["1️⃣"]).items.first)
        #expect(overdue.documentation?.value == "```markdown\nHi name,\ninvoice 42 is overdue.\n```\n\nChase an unpaid invoice\n\n`/lib/test.code-snippets:3`")

        // A long body is cut, and a reply carries at most its budget of documentation: the first items, in order.
        let letterList = try await client.complete("file:///w/note.md", at: note["2️⃣"]).items
        #expect(letterList.count == 40)
        let documented = letterList.prefix { $0.documentation != nil }
        #expect(documented.count >= 10 && documented.count < 40)
        #expect(letterList.dropFirst(documented.count).allSatisfy { $0.documentation == nil })
        #expect(documented.map { $0.documentation!.value.utf8.count }.reduce(0, +) <= CompletionBuilder.upFrontDocumentationBudget)
        let first = try #require(documented.first?.documentation?.value)
        #expect(first.hasPrefix("```markdown\nLine 1 of the letter, with more words, field.\n"))
        #expect(first.contains("Line 12 of the letter, with more words, field.…\n```"))
        #expect(!first.contains("Line 13"))
        // Resolving still gives the whole body.
        let resolved = try await client.result("completionItem/resolve", try JSONValue(encoding: letterList[0])).decode(CompletionItem.self)
        #expect(resolved.documentation?.value.contains("Line 30 of the letter") == true)

        // Clients that resolve documentation themselves (their own capabilities, as captured) get none up front.
        for fixture in ["lsp-mode-8.0.0", "helix", "eglot-1.12"] {
            let url = packageRoot.appendingPathComponent("Tests/Fixtures/client-capabilities/\(fixture).json")
            let json = try JSONValue.parse(Array(try Data(contentsOf: url)))
            let resolving = TestClient(library: letters)
            try await resolving.initialize(capabilities: json["capabilities"] ?? json, clientName: nil)
            let typed = MarkedText("overdue1️⃣")
            resolving.open("file:///w/note.md", language: "markdown", marked: typed)
            let items = try await resolving.complete("file:///w/note.md", at: typed["1️⃣"]).items
            #expect(items.map(\.label) == ["overdue"] && items.allSatisfy { $0.documentation == nil }, "\(fixture)")
        }
    }

    private static let variableLibrary = TestLibrary([
        makeFile([makeSnippet("Header", triggers: ["hdr"], body: "$LINE_COMMENT $TM_FILENAME:$TM_LINE_NUMBER ${1:x} $CURRENT_YEAR")])
    ])

    @Test(arguments: [
        ("helix", nil, "# a.py:2 ${1:x} 2023"),
        ("Neovim", nil, "# a.py:2 ${1:x} 2023"),
        ("Visual Studio Code", nil, "$LINE_COMMENT $TM_FILENAME:$TM_LINE_NUMBER ${1:x} $CURRENT_YEAR"),
        ("helix", "never", "$LINE_COMMENT $TM_FILENAME:$TM_LINE_NUMBER ${1:x} $CURRENT_YEAR"),
        ("Visual Studio Code", "always", "# a.py:2 ${1:x} 2023"),
    ] as [(String, String?, String)])
    func variablesAreResolvedOnTheServerForClientsThatCannot(client name: String, setting: String?, expected: String) async throws {
        let client = TestClient(library: Self.variableLibrary)
        let options: JSONValue? = setting.map { ["resolveVariables": .string($0)] }
        try await client.initialize(capabilities: snippetCapabilities, clientName: name, options: options)
        let document = MarkedText("import os\nhdr1️⃣")
        client.open("file:///w/a.py", language: "python", marked: document)
        let item = try #require(try await client.complete("file:///w/a.py", at: document["1️⃣"]).items.first)
        guard case .textEdit(let edit) = item.textEdit else {
            Issue.record("expected a TextEdit")
            return
        }
        #expect(edit.newText == expected)
    }
}

/// A VS Code prefix of several words keeps VS Code's matching: offered on its first word (VS Code's snippet provider
/// matches a prefix from the start of any word before the cursor), and, once more words are typed, over all of
/// them, never over text before them. UltiSnips' rule (not on the first word alone) is
/// `UltiSnipsLibraryTests.aMultiWordTriggerIsOfferedOverAllItsTypedWords`.
struct MultiWordPrefixTests {
    @Test func aPrefixOfSeveralWordsIsOfferedOverTheWordsTyped() async throws {
        let library = TestLibrary([makeFile([makeSnippet("For loop", triggers: ["for loop"], body: "for (;;) {}")])])
        let client = TestClient(library: library)
        try await client.initialize(capabilities: snippetCapabilities)
        for (number, (line, range)) in [("for", 0..<3), ("for lo", 0..<6), ("x = for loop", 4..<12)].enumerated() {
            client.open("file:///w/\(number).txt", language: "plaintext", text: line)
            let items = try await client.complete("file:///w/\(number).txt", line: 0, character: line.utf16.count).items
            let item = try #require(items.first { $0.label == "for loop" }, "\(line)")
            guard case .textEdit(let edit) = item.textEdit else {
                Issue.record("expected a TextEdit")
                continue
            }
            #expect(edit.range.start.character..<edit.range.end.character == range, "\(line)")
        }
    }
}

/// Non-word text before the cursor only completes triggers, so punctuation does not pop up body matches.
struct NonWordPrefixTests {
    @Test func punctuationRunMatchesTriggersOnly() async throws {
        let library = TestLibrary([makeFile([
            makeSnippet("Bang", triggers: ["!"], body: "<!DOCTYPE html>"),
            makeSnippet("Call", triggers: ["call"], body: "foo.call()"),
        ])])
        let client = TestClient(library: library)
        try await client.initialize()
        let document = MarkedText("x = !1️⃣\nfoo.2️⃣")
        client.open("file:///w/a.txt", language: "plaintext", marked: document)
        #expect(try await client.complete("file:///w/a.txt", at: document["1️⃣"]).items.map(\.label) == ["!"])
        // "foo." matches the body of "Call" as words, but it is not a trigger being typed.
        #expect(try await client.complete("file:///w/a.txt", at: document["2️⃣"]).items.isEmpty)
    }
}
