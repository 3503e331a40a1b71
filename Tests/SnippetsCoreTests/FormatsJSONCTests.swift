import Testing
@testable import SnippetsCore

@Suite struct FormatsJSONCTests {
    /// A compact rendering of a parsed value, so the table below can say what each input means.
    static func render(_ value: JSONCValue) -> String {
        switch value.kind {
        case .object(let members): "{" + members.map { "\($0.key)=\(render($0.value))" }.joined(separator: ",") + "}"
        case .array(let elements): "[" + elements.map(render).joined(separator: ",") + "]"
        case .string(let string): "'\(string)'"
        case .number(let number): number == number.rounded() ? String(Int(number)) : String(number)
        case .bool(let flag): String(flag)
        case .null: "null"
        }
    }

    static let valid: [(input: String, expected: String)] = [
        (#"{"a": 1}"#, "{a=1}"),
        ("{\"a\": [1, 2,],}", "{a=[1,2]}"),
        ("// comment\n{ /* inline */ \"a\" : true // end\n}", "{a=true}"),
        ("/* a\n multi-line comment */ [null, false, -1.5e2]", "[null,false,-150]"),
        (#"{"e": "q\"b\\s\/n\nt\tu\u00e9\ud83d\ude00"}"#, "{e='q\"b\\s/n\nt\tué😀'}"),
        ("\u{FEFF}{\"bom\": \"ok\"}", "{bom='ok'}"),
        (#"{"dup": 1, "dup": 2}"#, "{dup=1,dup=2}"),
        ("[]", "[]"),
        ("{\"tab\": \"a\tb\"}", "{tab='a\tb'}"),
    ]

    @Test(arguments: valid) func readsValidJSONC(_ input: String, _ expected: String) throws {
        let value = try JSONC.parse(Array(input.utf8)).get()
        #expect(Self.render(value) == expected)
    }

    static let invalid: [(input: String, offset: Int, message: String)] = [
        ("", 0, "unexpected end of file: expected a value"),
        ("{\"a\" 1}", 5, "expected ':' after the key \"a\""),
        ("{\"a\": 1 \"b\": 2}", 8, "unexpected character '\"': expected ',' or '}'"),
        ("{\"a\": [1, 2}", 11, "unexpected character '}': expected ',' or ']'"),
        ("{\"a\": \"open\n\"}", 6, "unterminated string (a line break inside a string must be written \\n)"),
        ("{\"a\": tru}", 6, "unexpected character: expected 'true'"),
        ("{\"a\": 1} x", 9, "unexpected text after the JSON value"),
        ("{\"a\": \"\\q\"}", 7, "invalid escape '\\q' in string"),
        ("{a: 1}", 1, "unexpected character 'a': expected a quoted key or '}'"),
        ("{\"a\": 1", 0, "unexpected end of file: '{' is never closed"),
        ("/* never closed", 0, "unterminated /* comment"),
        ("{\"a\": --1}", 6, "malformed number '--1'"),
    ]

    @Test(arguments: invalid) func reportsWhereJSONIsMalformed(_ input: String, _ offset: Int, _ message: String) {
        guard case .failure(let error) = JSONC.parse(Array(input.utf8)) else {
            Issue.record("expected a syntax error for \(input)")
            return
        }
        #expect(error.offset == offset)
        #expect(error.message == message)
    }

    /// `text` without its `‸` markers, and the UTF-8 offset of each (where an error is expected).
    static func marked(_ text: String) -> (text: String, offsets: [Int]) {
        var clean = ""
        var offsets: [Int] = []
        for character in text {
            if character == "‸" { offsets.append(clean.utf8.count) } else { clean.append(character) }
        }
        return (clean, offsets)
    }

    /// Broken texts, what the tolerant reading keeps of each (as VS Code's jsonc-parser keeps it), and where it
    /// reports each error (`‸`): one per mistake, at the place the mistake starts.
    static let recovered: [(input: String, expected: String)] = [
        // A missing comma between members or elements is supplied.
        ("{\"a\": 1 ‸\"b\": 2}", "{a=1,b=2}"),
        ("[1 ‸2, 3]", "[1,2,3]"),
        // A doubled comma, a stray word or a stray character between members is skipped.
        ("{\"a\": 1,‸, \"b\": 2}", "{a=1,b=2}"),
        ("{\"a\": 1, ‸oops \"b\": 2}", "{a=1,b=2}"),
        ("{\"a\": 1 ‸; \"b\": 2}", "{a=1,b=2}"),
        ("{\"a\": 1 ‸é, \"b\": 2}", "{a=1,b=2}"),
        // A missing colon is supplied before a value; a key without a value is dropped.
        ("{\"a\" ‸1, \"b\"‸, \"c\": 3}", "{a=1,c=3}"),
        // A closer of the enclosing container closes what is open inside it.
        ("{\"s\": {\"body\": [\"x\", \"y\" ‸}, \"t\": {\"body\": \"z\"}}", "{s={body=['x','y']},t={body='z'}}"),
        ("[{\"a\": 1 ‸]", "[{a=1}]"),
        // A `}` that closes the top-level object early, with more entries after it, is a stray one.
        ("{\"a\": 1‸}, \"b\": 2}", "{a=1,b=2}"),
        // Text after the top-level value is reported and left out.
        ("{\"a\": 1}‸,\n", "{a=1}"),
        // The end of the text closes what is still open; a string cut by a line break ends there.
        ("{\"a\": {\"b\": ‸[1", "{a={b=[1]}}"),
        ("{\"a\": ‸\"x\n, \"b\": 2}", "{a='x',b=2}"),
        // A malformed value drops its member only.
        ("{\"a\": ‸tru, \"b\": 2}", "{b=2}"),
        ("{\"a\": \"‸\\q\", \"b\": 2}", "{a='\\q',b=2}"),
        // Separate mistakes each get their own error.
        ("{\"a\": 1 ‸\"b\": 2 ‸\"c\": 3}", "{a=1,b=2,c=3}"),
    ]

    @Test(arguments: recovered) func readsPastSyntaxErrorsAsVSCodeDoes(_ input: String, _ expected: String) throws {
        let (text, offsets) = Self.marked(input)
        let reading = JSONC.read(Array(text.utf8))
        let value = try #require(reading.value)
        #expect(Self.render(value) == expected)
        #expect(reading.errors.map(\.offset) == offsets, "\(reading.errors)")
        // The strict reading fails at the first of them.
        guard case .failure(let error) = JSONC.parse(Array(text.utf8)) else {
            Issue.record("expected \(input) to be refused by the strict reading")
            return
        }
        #expect(error == reading.errors.first)
    }

    @Test func aWellFormedTextHasNoErrorsAndAHostileOneAFewHundredAtMost() {
        #expect(JSONC.read(Array("{\"a\": [1, 2,], /* c */ \"b\": {},}".utf8)).errors.isEmpty)
        // Every entry missing its comma: each is still read, and the errors listed stop at the limit.
        let entries = (0..<5_000).map { "\"k\($0)\": \($0)" }.joined(separator: " ")
        let reading = JSONC.read(Array("{\(entries)}".utf8))
        #expect(reading.value?.members?.count == 5_000)
        #expect(reading.errors.count == JSONC.maximumErrors + 1)
        #expect(reading.errors.last?.message == "more syntax errors follow; only the first \(JSONC.maximumErrors) are listed")
        // Stray closers, commas and colons only.
        let noise = JSONC.read(Array(("{" + String(repeating: "]}:,", count: 10_000)).utf8))
        #expect(noise.value?.members?.isEmpty == true)
        #expect(noise.errors.count <= JSONC.maximumErrors + 1)
    }

    @Test func keepsSourceRangesOfKeysAndValues() throws {
        let text = "{\n  // c\n  \"key\": { \"x\": [1, \"é\"] }\n}"
        let bytes = Array(text.utf8)
        let root = try JSONC.parse(bytes).get()
        let table = LineTable(text)
        let member = try #require(root.member("key"))
        #expect(table.slice(member.keyRange) == "\"key\"")
        #expect(table.slice(member.range) == "\"key\": { \"x\": [1, \"é\"] }")
        let array = try #require(member.value.member("x")?.value)
        #expect(table.slice(array.range) == "[1, \"é\"]")
        #expect(table.position(ofUTF8Offset: member.keyRange.lowerBound) == SourcePosition(line: 2, asciiColumn: 2))
    }

    @Test func rejectsHostileNesting() {
        let deep = String(repeating: "[", count: 10_000)
        guard case .failure(let error) = JSONC.parse(Array(deep.utf8)) else {
            Issue.record("expected nesting to be refused")
            return
        }
        #expect(error.message == "nesting is too deep")
    }
}
