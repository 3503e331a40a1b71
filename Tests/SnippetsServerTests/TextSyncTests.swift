import SnippetsCore
import Testing

@testable import SnippetsServer

/// Incremental sync: edits given as ranges in the negotiated encoding land on the right characters.
struct TextSyncTests {
    private func change(_ text: String, _ range: LSPRange?, _ newText: String, _ encoding: PositionEncoding) -> String {
        var document = TextDocument(uri: "file:///a", languageID: "plaintext", version: 1, text: text)
        document.apply(.init(range: range, text: newText), encoding: encoding)
        return document.text
    }

    private func range(_ line: Int, _ start: Int, _ end: Int) -> LSPRange {
        LSPRange(start: Position(line: line, character: start), end: Position(line: line, character: end))
    }

    @Test(arguments: [
        // (text, line, prefix before the edit on that line, replaced text, new text, expected)
        ("a😀b", 0, "a😀", "b", "X", "a😀X"),
        ("x\nПривет мир", 1, "Привет ", "мир", "world", "x\nПривет world"),
        ("漢字かな", 0, "漢字", "かな", "", "漢字"),
        ("e\u{301}e\u{301}!", 0, "e\u{301}e\u{301}", "!", "?", "e\u{301}e\u{301}?"),
        ("👨‍👩‍👧 family", 0, "👨‍👩‍👧 ", "family", "fam", "👨‍👩‍👧 fam"),
        ("one\r\ntwo😀three", 1, "two😀", "three", "3", "one\r\ntwo😀3"),
    ])
    func rangeEditsInEveryEncoding(text: String, line: Int, before: String, replaced: String, newText: String, expected: String) {
        for encoding in PositionEncoding.allCases {
            let start = encoding.length(of: before)
            let end = start + encoding.length(of: replaced)
            #expect(change(text, range(line, start, end), newText, encoding) == expected, "\(encoding)")
        }
    }

    @Test func wholeTextChangeReplacesEverything() {
        #expect(change("old", nil, "new 😀", .utf16) == "new 😀")
    }

    @Test func insertionAtEndOfLineAndPastTheEndIsClamped() {
        #expect(change("ab\ncd", range(0, 2, 2), "😀", .utf16) == "ab😀\ncd")
        #expect(change("ab\ncd", range(0, 99, 99), "!", .utf16) == "ab!\ncd")
        #expect(change("ab\ncd", range(7, 0, 0), "!", .utf16) == "ab\ncd!")
    }

    @Test(arguments: PositionEncoding.allCases)
    func aLoneSurrogateInAChangeKeepsTheDocumentInStep(encoding: PositionEncoding) async throws {
        let library = TestLibrary([makeFile([makeSnippet("For loop", triggers: ["for"], body: "for $1 {}")])])
        let client = TestClient(library: library)
        try await client.initialize(capabilities: ["general": ["positionEncodings": [.string(encoding.rawValue)]]])
        client.open("file:///w/a.txt", language: "plaintext", text: "x\n")
        // The editor's line 0 is now "<lone surrogate> fo" (valid JSON text, written by hand as JSON escapes it).
        // The server holds U+FFFD, which counts like it in every encoding (1 UTF-16 unit, 3 UTF-8 bytes, 1 scalar).
        let width = encoding == .utf8 ? 3 : 1
        let body = #"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///w/a.txt","version":2},"#
            + #""contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"text":"\ud800 f"}]}}"#
        client.sendRaw(MessageFramer.frame(Array(body.utf8)))
        // A later change whose position counts past the surrogate lands where the editor put it.
        client.notify("textDocument/didChange", [
            "textDocument": ["uri": "file:///w/a.txt", "version": 3],
            "contentChanges": [["range": ["start": ["line": 0, "character": .int(width + 2)], "end": ["line": 0, "character": .int(width + 2)]], "text": "o"]],
        ])
        let list = try await client.complete("file:///w/a.txt", line: 0, character: width + 3)
        let item = try #require(list.items.first)
        #expect(item.label == "for")
        guard case .textEdit(let edit) = try #require(item.textEdit) else {
            Issue.record("expected a plain text edit")
            return
        }
        #expect(edit.range == LSPRange(start: Position(line: 0, character: width + 1), end: Position(line: 0, character: width + 3)))
        #expect(await client.server.documents["file:///w/a.txt"]?.text == "\u{FFFD} fo\n")
    }

    @Test func editsOverTheWireThenCompletionSeesTheNewText() async throws {
        let library = TestLibrary([makeFile([makeSnippet("For loop", triggers: ["for"], body: "for $1 {}")])])
        let client = TestClient(library: library)
        try await client.initialize()
        client.open("file:///w/a.txt", language: "plaintext", text: "😀 Привет\n漢字")
        // Type "fo" after the emoji line's "Привет " — in UTF-16, "😀 Привет" is 9 units.
        client.notify("textDocument/didChange", [
            "textDocument": ["uri": "file:///w/a.txt", "version": 2],
            "contentChanges": [
                ["range": ["start": ["line": 0, "character": 9], "end": ["line": 0, "character": 9]], "text": " f"],
                ["range": ["start": ["line": 0, "character": 11], "end": ["line": 0, "character": 11]], "text": "o"],
            ],
        ])
        let list = try await client.complete("file:///w/a.txt", line: 0, character: 12)
        let item = try #require(list.items.first)
        #expect(item.label == "for")
        guard case .textEdit(let edit) = item.textEdit else {
            Issue.record("expected a TextEdit")
            return
        }
        #expect(edit.range == range(0, 10, 12))
        // After didClose the document is gone: no completions.
        client.notify("textDocument/didClose", ["textDocument": ["uri": "file:///w/a.txt"]])
        #expect(try await client.complete("file:///w/a.txt", line: 0, character: 12).items.isEmpty)
    }
}
