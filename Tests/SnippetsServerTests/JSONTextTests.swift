import Foundation
import Testing

@testable import SnippetsServer

/// The direct JSON reader and writer must read and write exactly what the Foundation round trips they replaced did.
@Suite struct JSONTextTests {
    /// What `JSONValue.parse` used to be: Foundation's decoder trying each type in turn.
    static func foundationParse(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// What `serialized()` used to be.
    static func foundationSerialize(_ value: JSONValue) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }

    static let inputs: [String] = [
        "null", "true", "false", "0", "-0", "1", "-17", "1.0", "1e2", "1.5e1", "-0.0", "1.5", "0.1", "-2.25e-3",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "12345678901234567890", "1E400",
        "01", "1.", ".5", "-", "+1", "1e", "tru", "nul", "\"\"", "\"abc\"", "\"a\\u0000b\"",
        "\"\\ud83d\\ude00\"", "\"\\u00e9\\n\\t\\r\\b\\f\\/\\\\\\\"\"",
        "\"\\x\"", "\"unterminated", "\"tab\there\"", "\"Привет, 😀 你好\"", "[]", "{}", "[1,2.5,\"x\",null]",
        "[1,]", "{\"a\":1,}", "[,]", "[1,,2]", "{,}", "{\"a\" 1}", "{\"a\":}", "{1:2}", "{\"a\":1,\"a\":2}",
        " \n\t[ 1 , { \"b\" : [ ] } ] \r\n", "[1] x", "", "   ", "[", "{\"a\":[{\"b\":{\"c\":[true,false]}}]}",
        String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
        String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"textDocument/completion\",\"params\":{\"position\":{\"line\":4,\"character\":7}}}",
    ]

    @Test func parsesWhatFoundationParsedAndRefusesWhatItRefused() {
        for input in Self.inputs {
            let parsed = try? JSONValue.parse(Array(input.utf8))
            #expect(parsed == Self.foundationParse(input), "input: \(input.prefix(80))")
        }
    }

    @Test(arguments: [
        // A lone surrogate is valid JSON text (Foundation refused it): each becomes U+FFFD, a pair stays joined.
        ("\"\\ud800\"", "\u{FFFD}"), ("\"\\udc00\"", "\u{FFFD}"), ("\"\\ud800x\"", "\u{FFFD}x"),
        ("\"\\ud800\\u0041\"", "\u{FFFD}A"), ("\"\\ud800\\ud83d\\ude00\"", "\u{FFFD}😀"),
        ("\"\\ude00\\ud83d\"", "\u{FFFD}\u{FFFD}"), ("\"a\\ud83d\"", "a\u{FFFD}"),
    ])
    func readsALoneSurrogateAsTheReplacementCharacter(input: String, expected: String) throws {
        #expect(try JSONValue.parse(Array(input.utf8)) == .string(expected))
    }

    @Test(arguments: [
        // `.int` only for the text's exact value (Foundation rounded through Double: 9007199254740992, Int.min, 0).
        // The doubles are written as the values the texts round to (-2^63; 12345678901234567168), so the literals
        // are exact.
        ("9007199254740993.0", JSONValue.int(9_007_199_254_740_993)), ("5.0", .int(5)), ("1e2", .int(100)),
        ("-1.50e1", .int(-15)), ("0.0e5", .int(0)), ("9223372036854775807.0", .int(Int.max)),
        ("-9223372036854775809", .double(-0x1p63)), ("1e-400", .double(0)),
        ("9223372036854775808.0", .double(9_223_372_036_854_775_808)), ("1.5", .double(1.5)),
        ("12345678901234567890e0", .double(12_345_678_901_234_567_168)),
    ])
    func readsAnIntegerOnlyWhenTheTextIsExactlyOne(input: String, expected: JSONValue) throws {
        #expect(try JSONValue.parse(Array(input.utf8)) == expected)
    }

    @Test func refusesInvalidUTF8InStrings() {
        let bytes: [UInt8] = Array("[\"a".utf8) + [0xFF, 0xFE] + Array("\"]".utf8)
        #expect(throws: (any Error).self) { try JSONValue.parse(bytes) }
    }

    @Test func writesWhatFoundationWrote() {
        let values: [JSONValue] = [
            .null, true, 0, -5, .double(1.5), .double(0.1), .double(1e20), .double(1e-7), .double(-0.0),
            .double(123456789012), .double(1e300), .string("a\u{0}\u{1f}\u{7f}\t\n\r\u{8}\u{c}\"\\/é\u{2028}😀"),
            ["b": 1, "B": 2, "a": 3, "A": 4, "_x": 5, "10": 6, "9": 7, "é": 8, "z": 9, "aB": 10, "ab": 11],
            ["items": [["label": "x", "textEdit": ["newText": "${1:a}\n\t$0"]]], "isIncomplete": false], [],
            .object([:]),
        ]
        for value in values {
            #expect(String(decoding: value.serialized(), as: UTF8.self) == Self.foundationSerialize(value))
        }
        #expect(JSONValue.double(.nan).serialized() == Array("null".utf8))
    }

    @Test func encodesValuesAsTheFoundationRoundTripDid() throws {
        struct Inner: Codable { var name: String; var score: Double; var flag: Bool? }
        struct Outer: Codable {
            var items: [Inner]
            var count: Int
            var ratio: Float
            var small: UInt8
            var missing: String?
            var nested: [String: [Int]]
            var raw: JSONValue
            var when: Date
        }
        let value = Outer(
            items: [Inner(name: "a", score: 2, flag: nil), Inner(name: "é\n", score: 0.25, flag: true)],
            count: 3, ratio: 0.1, small: 7, missing: nil, nested: ["k": [1, 2]], raw: ["x": [1, "y"]],
            when: Date(timeIntervalSinceReferenceDate: 12.5))
        let foundation = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(try JSONValue(encoding: value) == foundation)
        #expect(try JSONValue(encoding: CompletionList(isIncomplete: true, items: [])) == ["isIncomplete": true, "items": []])
        #expect(throws: EncodingError.self) { try JSONValue(encoding: [Double.infinity]) }
    }

    @Test func decodesTypedValuesThroughTheWriter() throws {
        let params: JSONValue = ["textDocument": ["uri": "file:///a.txt"], "position": ["line": 2, "character": 5]]
        let decoded = try params.decode(CompletionParams.self)
        #expect(decoded.textDocument.uri == "file:///a.txt")
        #expect(decoded.position == Position(line: 2, character: 5))
    }
}

/// The hand-built completion JSON equals what `Codable` gives.
struct CompletionJSONTests {
    static func viaCodable<T: Encodable>(_ value: T) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }

    @Test func completionListsEncodeAsTheirCodableConformanceDoes() throws {
        let range = LSPRange(start: Position(line: 1, character: 2), end: Position(line: 1, character: 5))
        let full = CompletionItem(
            label: "for", detail: "For loop", documentation: .markdown("**x**\n"), sortText: "00000",
            filterText: "for", insertTextFormat: .snippet,
            textEdit: .insertReplace(InsertReplaceEdit(newText: "for ${1:x}\n\t$0", insert: range, replace: range)),
            data: CompletionItemData(snippetID: "abc", uri: "file:///a.swift"))
        let bare = CompletionItem(
            label: "é", detail: nil, documentation: nil, sortText: nil, filterText: nil, insertTextFormat: nil,
            textEdit: .textEdit(TextEdit(range: range, newText: "x")), data: CompletionItemData(snippetID: "d", uri: nil))
        let empty = CompletionItem(label: "e")
        var joined = CompletionItem(label: "if else", filterText: "else", textEdit: .textEdit(TextEdit(range: range, newText: "y")))
        joined.additionalTextEdits = [TextEdit(range: range, newText: ""), TextEdit(range: range, newText: "z")]
        let documented = CompletionItem(
            label: "q\"\\\u{1}", detail: "d", documentation: .markdown("m"), sortText: "1", filterText: nil,
            insertTextFormat: .plainText, textEdit: nil, data: nil)
        for list in [
            CompletionList(isIncomplete: true, items: [full, bare, empty, documented, joined]),
            CompletionList(isIncomplete: false, items: []),
        ] {
            let codable = try Self.viaCodable(list)
            #expect(try JSONValue(encoding: list) == codable)
            var writer = JSONText.Writer()
            list.writeJSON(into: &writer)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == String(decoding: codable.serialized(), as: UTF8.self))
        }
    }
}

/// Params decoded straight from a `JSONValue` equal what `JSONDecoder` gives, and failures keep its errors.
struct JSONValueDecoderTests {
    struct Sample: Codable, Equatable {
        var name: String
        var count: Int
        var ratio: Double
        var small: UInt8?
        var flags: [Bool]
        var nested: [String: [Int]]
        var raw: JSONValue?
        var missing: String?
        var edit: CompletionTextEdit?
    }

    enum Outcome<T: Equatable>: Equatable {
        case value(T)
        case failure(String)
    }

    static func viaFoundation<T: Decodable>(_ type: T.Type, _ value: JSONValue) -> Outcome<T> {
        do {
            return .value(try JSONDecoder().decode(type, from: Data(value.serialized())))
        } catch {
            return .failure(String(describing: error))
        }
    }

    static func viaValue<T: Decodable>(_ type: T.Type, _ value: JSONValue) -> Outcome<T> {
        do { return .value(try value.decode(type)) } catch { return .failure(String(describing: error)) }
    }

    @Test func decodesAsFoundationDoes() throws {
        let range: JSONValue = ["start": ["line": 0, "character": 1], "end": ["line": 0, "character": 2]]
        let values: [JSONValue] = [
            ["name": "a", "count": 2, "ratio": 3, "small": 7, "flags": [true, false], "nested": ["k": [1]], "raw": ["x": [1, "y"]],
             "edit": ["newText": "n", "insert": range, "replace": range]],
            ["name": "é", "count": -1, "ratio": .double(0.5), "flags": [], "nested": [:], "raw": nil, "missing": nil,
             "edit": ["newText": "n", "range": range]],
            ["name": "a", "count": .double(1.5), "ratio": 1, "flags": [], "nested": [:]],
            ["name": 1, "count": 1, "ratio": 1, "flags": [], "nested": [:]],
            ["name": "a", "count": 1, "ratio": 1, "small": 300, "flags": [], "nested": [:]],
            ["name": "a", "count": 1, "ratio": 1, "flags": [1], "nested": [:]],
            ["count": 1, "ratio": 1, "flags": [], "nested": [:]],
            ["name": "a", "count": 1, "ratio": 1, "flags": [], "nested": [:], "edit": ["newText": 3]],
            [1, 2], "text", .null,
        ]
        for value in values {
            #expect(Self.viaValue(Sample.self, value) == Self.viaFoundation(Sample.self, value), "\(value)")
        }
        let params: JSONValue = ["textDocument": ["uri": "file:///a"], "position": ["line": 3, "character": 4], "context": ["triggerKind": 1]]
        #expect(try params.decode(CompletionParams.self).position == Position(line: 3, character: 4))
    }
}
