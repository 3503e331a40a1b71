import Testing
@testable import SnippetsCore

/// Every kind of bad input gives a diagnostic with a place and a stable code, and the rest of the library loads.
@Suite struct FormatsBadInputTests {
    static let good = #"{ "Good": { "prefix": "good", "body": "fine" } }"#

    /// The 1-based line and UTF-16 column of the first occurrence of `needle` in `text`.
    func place(of needle: String, in text: String) -> String {
        let table = LineTable(text)
        let offset = text.utf8.count - text[text.range(of: needle)!.lowerBound...].utf8.count
        let position = table.position(ofUTF8Offset: offset)
        return "\(position.line + 1):\(position.utf16Column + 1)"
    }

    @Test func malformedJSONIsAnErrorWhereItBreaksAndOtherFilesStillLoad() {
        let broken = "{\n  \"A\": { \"body\": \"x\" }\n  \"B\": {}\n}"
        let library = loadLibrary(["/lib/a.code-snippets": broken, "/lib/b.code-snippets": Self.good])
        #expect(library.snippets.map(\.title) == ["A", "Good"])
        #expect(summaries(library.diagnostics) == ["3:3 error json-syntax", "3:3 error missing-body"])
        #expect(library.diagnostics[0].message == "malformed JSON: unexpected character '\"': expected ',' or '}'")
        #expect(library.files.count == 2)
    }

    /// A language file of seven snippets as a person edits it, each mistake VS Code reads past in turn.
    static func pythonJSON(_ mistake: String) -> String {
        let entries = ["for", "while", "def", "class", "main", "try", "with"].map { name in
            "  \"\(name.capitalized) block\": {\n    \"prefix\": \"\(name)\",\n    \"body\": [\"\(name) ${1:x}:\", \"\\t$0\"]\n  }"
        }
        // The mistake goes where the comma between the third and the fourth entry belongs (line 13, after the
        // third's closing brace): "" leaves the comma out.
        let head = entries[0..<3].joined(separator: ",\n")
        let tail = entries[3...].joined(separator: ",\n")
        return "{\n" + head + mistake + "\n" + tail + "\n}\n"
    }

    static let mistakes: [(mistake: String, name: String, message: String)] = [
        ("", "a missing comma", "malformed JSON: unexpected character '\"': expected ',' or '}'"),
        (",,", "a doubled comma", "malformed JSON: unexpected character ',': expected a quoted key or '}'"),
        (", x", "a stray character", "malformed JSON: unexpected character 'x': expected a quoted key or '}'"),
        ("},", "a stray closing brace", "malformed JSON: unexpected character '}': more entries follow it, so it is read as a stray '}'"),
    ]

    @Test(arguments: mistakes)
    func aSyntaxErrorBetweenEntriesKeepsEveryEntryAndIsAnErrorAtItsLine(_ mistake: String, _ name: String, _ message: String) {
        let text = Self.pythonJSON(mistake)
        let library = loadLibrary(["/lib/python.json": text])
        #expect(library.snippets.count == 7, "\(name): \(library.snippets.map(\.title))")
        #expect(library.snippets.map(\.triggers) == [["for"], ["while"], ["def"], ["class"], ["main"], ["try"], ["with"]])
        #expect(library.snippets.allSatisfy { $0.scopes == ["python"] })
        let line = mistake.isEmpty ? 14 : 13
        #expect(summaries(library.diagnostics).map { $0.split(separator: ":")[0] } == ["\(line)"], "\(name)")
        #expect(library.diagnostics.map(\.message) == [message])
        #expect(library.diagnostics.map(\.code) == [.jsonSyntax])
    }

    @Test func aCommaAfterTheLastBraceKeepsEveryEntry() {
        let library = loadLibrary(["/lib/python.json": String(Self.pythonJSON(",").dropLast()) + ",\n"])
        #expect(library.snippets.count == 7)
        #expect(summaries(library.diagnostics) == ["30:2 error json-syntax"])
        #expect(library.diagnostics[0].message == "malformed JSON: unexpected text after the JSON value")
    }

    /// An entry cut short at the end of the file loses its body to the syntax error: one mistake, one error.
    @Test func aBodyLostToASyntaxErrorIsThatErrorOnly() {
        let text = "{\n  \"A\": { \"prefix\": \"a\", \"body\": \"x\" },\n  \"Cut\": { \"prefix\": \"c\", \"body\": "
        let library = loadLibrary(["/lib/a.code-snippets": text])
        #expect(library.snippets.map(\.title) == ["A"])
        #expect(summaries(library.diagnostics) == ["3:35 error json-syntax"])
        #expect(library.diagnostics.map(\.message) == ["malformed JSON: unexpected end of file: expected a value"])
    }

    @Test func aFileThatHoldsNoValueSaysNoSnippetsWereRead() {
        let library = loadLibrary(["/lib/a.code-snippets": "just some notes\n"])
        #expect(library.snippets.isEmpty)
        #expect(library.diagnostics.map(\.message) == [
            "malformed JSON: unexpected character 'j': expected a value; no snippets were read from this file"
        ])
    }

    @Test func wrongTypesDropOnlyTheSnippetTheyBreak() {
        let text = """
            {
              "Number body": { "prefix": "n", "body": 42 },
              "Mixed body": { "prefix": "m", "body": ["ok", 1] },
              "Not an object": "body",
              "No body": { "prefix": "nb" },
              "Odd fields": { "prefix": 7, "body": "kept", "description": false, "scope": ["js"], "isFileTemplate": "yes", "desciption": "typo" },
              "Good": { "prefix": "g", "body": "g" }
            }
            """
        let library = loadLibrary(["/lib/x.code-snippets": text])
        #expect(library.snippets.map(\.title) == ["Odd fields", "Good"])
        #expect(library.snippets[0].triggers.isEmpty)
        #expect(library.snippets[0].description == nil)
        #expect(
            summaries(library.diagnostics) == [
                "\(place(of: "42", in: text)) error wrong-type",
                "\(place(of: "1]", in: text)) error wrong-type",
                "\(place(of: "\"body\",", in: text)) error wrong-type",
                "\(place(of: "\"No body\"", in: text)) error missing-body",
                "\(place(of: "7,", in: text)) warning wrong-type",
                "\(place(of: "false", in: text)) warning wrong-type",
                "\(place(of: "[\"js\"]", in: text)) warning wrong-type",
                "\(place(of: "\"yes\"", in: text)) warning wrong-type",
                "\(place(of: "\"desciption\"", in: text)) note unknown-key",
            ])
        #expect(library.diagnostics[0].message == "'body' of snippet 'Number body' must be a string or an array of strings, not a number")
    }

    @Test func bodyProblemsPointIntoTheFileThroughEscapesAndArrayLines() {
        let text = """
            {
              "Escaped": { "prefix": "e", "body": "say \\"hi\\" \\t é ${1:oops" },
              "Lines": { "prefix": "l", "body": ["fine", "  then ${2:open"] },
              "Variable": { "prefix": "v", "body": "$UNKNOWN_THING" }
            }
            """
        let library = loadLibrary(["/lib/x.code-snippets": text])
        #expect(library.snippets.count == 3)
        #expect(
            summaries(library.diagnostics) == [
                "\(place(of: "${1:oops", in: text)) error unterminated-placeholder",
                "\(place(of: "${2:open", in: text)) error unterminated-placeholder",
                "\(place(of: "$UNKNOWN", in: text)) warning unknown-variable",
            ])
        #expect(library.diagnostics[0].message.hasSuffix("(in snippet 'Escaped')"))
    }

    @Test func snipMateBodyProblemsPointAtTheBodyLine() {
        let text = "snippet a\n\tfirst line\n\t\tx ${1:never closed\n"
        let library = loadLibrary(["/lib/sh.snippets": text])
        #expect(summaries(library.diagnostics) == ["3:5 error unterminated-placeholder"])
    }

    @Test func emptyBodiesAreReportedAndSkipped() {
        let library = loadLibrary([
            "/lib/a.code-snippets": #"{ "Empty": { "prefix": "e", "body": "" }, "No lines": { "prefix": "n", "body": [] }, "Good": { "prefix": "g", "body": "g" } }"#,
            "/lib/sh.snippets": "snippet empty\n\nsnippet ok\n\tok\n",
        ])
        #expect(library.snippets.map(\.title) == ["Good", "ok"])
        let json = library.files[0].path == "/lib/a.code-snippets" ? library.files[0] : library.files[1]
        #expect(json.diagnostics.map(\.position.utf16Column) == [36, 79])  // at each empty body value
        #expect(summaries(library.diagnostics) == ["1:37 warning empty-body", "1:80 warning empty-body", "1:1 warning empty-body"])
    }

    @Test func duplicatePrefixesAndKeysWarn() {
        let text = """
            {
              "One": { "prefix": ["dup", "one"], "body": "1" },
              "Two": { "prefix": "dup", "body": "2" },
              "Other scope": { "prefix": "dup", "body": "3", "scope": "rust" },
              "One": { "prefix": "again", "body": "4" }
            }
            """
        let library = loadLibrary(["/lib/x.code-snippets": text])
        #expect(library.snippets.map(\.body) == ["2", "3", "4"])
        #expect(summaries(library.diagnostics) == ["2:3 warning duplicate-key"])
        let dup = loadLibrary(["/lib/x.code-snippets": text.replacingOccurrences(of: "\"One\": { \"prefix\": \"again\", \"body\": \"4\" }", with: "\"Three\": { \"prefix\": \"x\", \"body\": \"4\" }")])
        #expect(summaries(dup.diagnostics) == ["3:3 warning duplicate-prefix"])
        #expect(dup.diagnostics[0].message == "prefix 'dup' of snippet 'Two' is already used globally by snippet 'One' in this file")
    }

    @Test func binaryHugeAndUnreadableFilesAreErrorsOnThatFile() {
        var fileSystem = InMemoryFileSystem(
            files: ["/lib/good.code-snippets": Self.good, "/lib/huge.code-snippets": Self.good + String(repeating: " ", count: 100)],
            unreadable: ["/lib/locked.code-snippets"])
        fileSystem.files["/lib/nul.code-snippets"] = Array(Self.good.utf8) + [0]
        fileSystem.files["/lib/latin1.code-snippets"] = Array("{ \"Caf".utf8) + [0xE9] + Array("\": {} }".utf8)
        fileSystem.files["/lib/locked.code-snippets"] = Array(Self.good.utf8)
        let library = LibraryLoader(fileSystem: fileSystem, maximumFileSize: 60).load(paths: ["/lib"])
        #expect(library.snippets.count == 1)
        let byFile = Dictionary(uniqueKeysWithValues: library.files.map { ($0.path, $0.diagnostics.map(\.code.rawValue)) })
        #expect(byFile["/lib/good.code-snippets"] == [])
        #expect(byFile["/lib/huge.code-snippets"] == ["file-too-large"])
        #expect(byFile["/lib/nul.code-snippets"] == ["binary-file"])
        #expect(byFile["/lib/latin1.code-snippets"] == ["binary-file"])
        #expect(byFile["/lib/locked.code-snippets"] == ["unreadable"])
        #expect(library.files.allSatisfy { $0.diagnostics.allSatisfy { $0.position == SourcePosition(line: 0, asciiColumn: 0) } })
        #expect(library.files.first { $0.path == "/lib/huge.code-snippets" }?.diagnostics.first?.message
            == "the file is 148 bytes, over the 60-byte limit for snippet files, so it was not read")
    }

    @Test func utf16FilesAreCalledUTF16WithHowToConvertNotBinary() {
        var fileSystem = InMemoryFileSystem()
        let text = #"{ "A": { "prefix": "a", "body": "x" } }"#
        fileSystem.files["/lib/bom.code-snippets"] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        fileSystem.files["/lib/le.code-snippets"] = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        fileSystem.files["/lib/be.code-snippets"] = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let library = LibraryLoader(fileSystem: fileSystem).load(paths: ["/lib"])
        let messages = Dictionary(uniqueKeysWithValues: library.files.map { ($0.path, $0.diagnostics.map(\.message)) })
        for (path, encoding) in [("/lib/bom.code-snippets", "UTF-16"), ("/lib/le.code-snippets", "UTF-16LE"), ("/lib/be.code-snippets", "UTF-16BE")] {
            let message = messages[path]?.first ?? ""
            #expect(message.contains("is \(encoding) text") && message.contains("iconv -f \(encoding) -t UTF-8"), "\(path): \(message)")
            #expect(!message.contains("binary"))
        }
    }

    @Test func aBodyReportsAtMostFiftyProblemsAndCountsTheRest() {
        let body = String(repeating: "${1:", count: 10) + String(repeating: "${x ", count: 200)
        let text = #"{ "Bad": { "prefix": "bad", "body": "\#(body)" } }"#
        let library = LibraryLoader(fileSystem: InMemoryFileSystem(files: ["/lib/bad.code-snippets": text])).load(paths: ["/lib"])
        let diagnostics = library.diagnostics
        #expect(diagnostics.count == 51)
        #expect(diagnostics.last?.code.rawValue == "more-body-problems")
        #expect(diagnostics.last?.message.hasPrefix("160 more problems in snippet 'Bad'") == true)
    }

    @Test func symlinkLoopsAndMissingPathsAreLoaderDiagnostics() {
        let library = loadLibrary(
            ["/lib/a/good.code-snippets": Self.good],
            paths: ["/lib", "/nowhere/snippets"],
            links: ["/lib/a/self.json": "self.json", "/lib/a/up": "/lib"])
        #expect(library.snippets.count == 1)
        #expect(
            library.loaderDiagnostics.map { "\($0.code) \($0.uri)" } == [
                "unusable-path file:///lib/a/self.json",
                "symlink-loop file:///lib/a/up",
                "missing-path file:///nowhere/snippets",
            ])
        #expect(library.loaderDiagnostics[2].message == "the library path '/nowhere/snippets' does not exist")
        #expect(library.loaderDiagnostics[0].message == "'/lib/a/self.json' cannot be used: a symbolic link loop")
    }

    @Test func otherFilesInALibraryAreSkippedButAnExplicitOneIsNot() {
        let files = [
            "/lib/README.md": "# my snippets",
            "/lib/package.json": #"{ "name": "not-an-extension" }"#,
            "/lib/.git/config.json": "not json at all",
            "/lib/js.json": #"{ "Log": { "prefix": "log", "body": "console.log($1)" } }"#,
        ]
        let library = loadLibrary(files)
        #expect(library.snippets.map(\.scopes) == [["js"]])
        #expect(library.diagnostics.isEmpty)
        let explicit = loadLibrary(files, paths: ["/lib/README.md"])
        #expect(explicit.loaderDiagnostics.map(\.code.rawValue) == ["unknown-format"])
    }
}
