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
