import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// Adding an entry to a `.code-snippets` text: everything that was there stays, byte for byte.
@Suite struct SnippetFileEditTests {
    let greeting = NewSnippet(title: "Greeting", trigger: "hi", text: "Hello $name\\n}")

    /// The expected entry for `greeting`, at one tab.
    let greetingEntry = """
        \t"Greeting": {
        \t\t"prefix": "hi",
        \t\t"body": ["Hello \\\\$name\\\\\\\\n\\\\}"]
        \t}
        """

    func add(_ snippet: NewSnippet? = nil, to original: String?) throws -> String {
        String(decoding: try SnippetFileEdit.adding(snippet ?? greeting, to: original.map { Array($0.utf8) }), as: UTF8.self)
    }

    @Test func missingFileBecomesAnObjectWithOneEntry() throws {
        #expect(try add(to: nil) == "{\n" + greetingEntry + "\n}\n")
    }

    @Test(arguments: [
        ("{}", "{\n%ENTRY%\n}"),
        ("{\n}\n", "{\n%ENTRY%\n}\n"),
        ("// mine\n{ /* empty */ }", "// mine\n{ /* empty */\n%ENTRY%\n }"),
    ])
    func emptyObjects(original: String, expected: String) throws {
        #expect(try add(to: original) == expected.replacingOccurrences(of: "%ENTRY%", with: greetingEntry))
    }

    @Test func commaAfterTheLastMemberAndItsCommentKept() throws {
        let original = """
            {
            \t// first
            \t"A": { "prefix": "a", "body": "x" } // trailing note
            }
            """
        let expected = """
            {
            \t// first
            \t"A": { "prefix": "a", "body": "x" }, // trailing note
            \(greetingEntry)
            }
            """
        #expect(try add(to: original) == expected)
    }

    @Test func aCRLFFileGetsCRLFLines() throws {
        let result = try add(to: "{\r\n  \"A\": {\"prefix\": \"a\", \"body\": \"x\"}\r\n}\r\n")
        let expected = "{\r\n  \"A\": {\"prefix\": \"a\", \"body\": \"x\"},\r\n"
            + greetingEntry.replacingOccurrences(of: "\t", with: "  ").replacingOccurrences(of: "\n", with: "\r\n")
            + "\r\n}\r\n"
        #expect(result == expected)
    }

    @Test func trailingCommaIsNotDoubled() throws {
        let original = "{\n  \"A\": {\"prefix\": \"a\", \"body\": \"x\"},\n  /* end */\n}\n"
        let result = try add(to: original)
        #expect(result.hasPrefix("{\n  \"A\": {\"prefix\": \"a\", \"body\": \"x\"},\n  /* end */\n  \"Greeting\": {\n    \"prefix\": \"hi\","))
        #expect(result.hasSuffix("\n  }\n}\n"))
        #expect(!result.contains(",,"))
    }

    /// Whatever the file held, deleting the inserted bytes gives it back exactly, and the result loads with the new
    /// snippet's text unchanged (escaping round-trips).
    @Test(arguments: [
        "{}",
        "{\"A\": {\"prefix\": \"a\", \"body\": [\"x\"]}}",
        "\u{FEFF}{\r\n\t\"Ünïcode ✓\": {\"prefix\": [\"u\", \"ü\"], \"body\": \"é\"},\r\n}\r\n// after\r\n",
        "{\"A\": {\"prefix\": \"a\", \"body\": \"x\"} /* c */ , /* d */ }",
    ])
    func nothingIsLostAndTheSnippetLoads(original: String) throws {
        let text = "if a > $b {\n\t\\print(\"}\")\n}"
        let snippet = NewSnippet(title: "Saved ✓", trigger: "sv", text: text, scope: "swift", description: "from a test")
        let result = try SnippetFileEdit.adding(snippet, to: Array(original.utf8))
        #expect(isSubsequence(Array(original.utf8), of: result))
        let fileSystem = InMemoryFileSystem(files: ["/t/x.code-snippets": String(decoding: result, as: UTF8.self)])
        let library = LibraryLoader(fileSystem: fileSystem).load(paths: ["/t"])
        let file = try #require(library.files.first)
        #expect(file.diagnostics.filter { $0.severity == .error }.isEmpty, "\(file.diagnostics)")
        let saved = try #require(file.snippets.first { $0.title == "Saved ✓" })
        #expect(saved.triggers == ["sv"])
        #expect(saved.scopes == ["swift"])
        #expect(saved.description == "from a test")
        #expect(SnippetBody.parse(saved.body).body.plainText() == text)
    }

    @Test func duplicatesAndBrokenFilesAreRefused() throws {
        let original = "{\"A\": {\"prefix\": [\"x\", \"hi\"], \"body\": \"x\"}, \"Greeting\": {\"prefix\": \"g\", \"body\": \"\"}}"
        #expect(throws: SnippetFileEditError.duplicateTrigger("hi")) {
            try add(NewSnippet(title: "Other", trigger: "hi", text: "x"), to: original)
        }
        #expect(throws: SnippetFileEditError.duplicateTitle("Greeting")) {
            try add(NewSnippet(title: "Greeting", trigger: "new", text: "x"), to: original)
        }
        #expect(throws: SnippetFileEditError.notAnObject) { try add(to: "[]") }
        #expect {
            try add(to: "{\"A\": ")
        } throws: { error in
            guard case .unreadable(let reason) = error as? SnippetFileEditError else { return false }
            return reason.hasPrefix("line 1:")
        }
    }

    private func isSubsequence(_ small: [UInt8], of large: [UInt8]) -> Bool {
        var index = large.startIndex
        for byte in small {
            guard let found = large[index...].firstIndex(of: byte) else { return false }
            index = found + 1
        }
        return true
    }
}

/// Writing to disk: atomic, and never over bytes someone else wrote meanwhile.
@Suite struct SnippetFileWriterTests {
    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "snippets-writer-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    var path: String { directory + "/saved.code-snippets" }
    func contents() throws -> String { try String(contentsOfFile: path, encoding: .utf8) }
    func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0 != "saved.code-snippets" }
    }

    func append(_ text: String) -> ([UInt8]?) throws(SnippetFileEditError) -> [UInt8] {
        { original in (original ?? []) + Array(text.utf8) }
    }

    @Test func createsAMissingFileAndKeepsThePermissionsOfAnExistingOne() throws {
        try SnippetFileWriter().update(path, edit: append("one"))
        #expect(try contents() == "one")
        chmod(path, 0o600)
        try SnippetFileWriter().update(path, edit: append("+two"))
        #expect(try contents() == "one+two")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try leftovers().isEmpty)
    }

    @Test func aFileChangedAfterReadingIsReadAgain() throws {
        try "base".write(toFile: path, atomically: false, encoding: .utf8)
        let target = path
        let writer = SnippetFileWriter { _, attempt in
            if attempt == 1 { try? "base+theirs".write(toFile: target, atomically: false, encoding: .utf8) }
        }
        try writer.update(path, edit: append("+ours"))
        #expect(try contents() == "base+theirs+ours")
        #expect(try leftovers().isEmpty)
    }

    @Test func aFileCreatedMeanwhileIsNotOverwritten() throws {
        let target = path
        let writer = SnippetFileWriter { _, attempt in
            if attempt == 1 { try? "theirs".write(toFile: target, atomically: false, encoding: .utf8) }
        }
        try writer.update(path, edit: append("+ours"))
        #expect(try contents() == "theirs+ours")
    }

    @Test func aFileThatKeepsChangingIsLeftAlone() throws {
        try "base".write(toFile: path, atomically: false, encoding: .utf8)
        let target = path
        let writer = SnippetFileWriter(attempts: 3) { _, attempt in
            try? "theirs \(attempt)".write(toFile: target, atomically: false, encoding: .utf8)
        }
        #expect(throws: SnippetFileWriteError.keptChanging(attempts: 3)) { try writer.update(path, edit: append("+ours")) }
        #expect(try contents() == "theirs 3")
        #expect(try leftovers().isEmpty)
    }

    @Test func aSymbolicLinkIsFollowedNotReplaced() throws {
        let real = directory + "/real.code-snippets"
        try "{}".write(toFile: real, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: real)
        try SnippetFileWriter().update(path, edit: append("+ours"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path) == real)
        #expect(try String(contentsOfFile: real, encoding: .utf8) == "{}+ours")
    }

    @Test func aRefusedEditWritesNothing() throws {
        try "{}".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(throws: SnippetFileWriteError.refused(.notAnObject)) {
            try SnippetFileWriter().update(path) { _ throws(SnippetFileEditError) in throw .notAnObject }
        }
        #expect(try contents() == "{}")
        #expect(throws: SnippetFileWriteError.missingDirectory(directory + "/nope")) {
            try SnippetFileWriter().update(directory + "/nope/x.code-snippets", edit: append("x"))
        }
    }
}
