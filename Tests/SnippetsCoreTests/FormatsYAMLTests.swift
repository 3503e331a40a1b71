import Dispatch
import Foundation
import TestSupport
import Testing
@testable import SnippetsCore

/// The YAML reader's own cases (its agreement with PyYAML over the corpora is `Tests/e2e/test_yaml_crosscheck.py`).
@Suite struct FormatsYAMLTests {
    static func parse(_ text: String) -> Result<YAMLNode?, YAMLSyntaxError> { YAML.parse(Array(text.utf8)) }

    @Test func everyKeyAndScalarKeepsItsRange() throws {
        let text = "matches:\n  - trigger: \":a\"\n    replace: |\n      two\n      lines\n    label: plain  # comment\n"
        let root = try #require(try Self.parse(text).get())
        let bytes = Array(text.utf8)
        func source(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        let match = try #require(root.member("matches")?.value.items?.first)
        let trigger = try #require(match.member("trigger"))
        #expect(source(trigger.key.range) == "trigger")
        #expect(source(trigger.value.range) == "\":a\"")
        #expect(trigger.value.string == ":a")
        let replace = try #require(match.member("replace")?.value)
        #expect(replace.string == "two\nlines\n")
        #expect(source(replace.range) == "|\n      two\n      lines")
        // Offsets inside a block scalar's value map back to its lines.
        let scalar = try #require(replace.scalar)
        #expect(source(scalar.sourceOffset(ofValueUTF8: 4)..<(scalar.sourceOffset(ofValueUTF8: 4) + 5)) == "lines")
        #expect(match.member("label")?.value.string == "plain")
        #expect(source(match.range).hasPrefix("trigger") && source(match.range).hasSuffix("plain"))
    }

    @Test func unreadYAMLIsALocatedErrorNeverACrash() {
        let cases: [(String, Int)] = [
            ("a: !tag x\n", 3), ("a: b: c\n", 3), ("a: 'open\n", 3), ("a: [x\n", 3), ("%YAML 1.2\n---\n", 0),
            ("a: 1\n---\nb: 2\n", 5), ("a: *none\n", 3), ("? k\n: v\n", 0), ("a:\n\t- x\n", 3), ("a: \"\\q\"\n", 4),
            ("a:\n  b: 1\n c: 2\n", 11), ("[a, b]: c\n", 0),
            // Found by the espanso fuzz target: a NUL inside a quoted value looped for ever.
            ("a: \"x\u{0}y\"\n", 5),
        ]
        for (text, offset) in cases {
            switch Self.parse(text) {
            case .success: Issue.record("'\(text)' was read")
            case .failure(let error): #expect(error.offset == offset, "\(text): \(error.message)")
            }
        }
    }

    @Test func aliasesCannotExpandWithoutBound() {
        // Each level names the one before ten times: a billion values if expanded.
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 {
            let previous = "*a\(level - 1)"
            text += "a\(level): &a\(level) [\(Array(repeating: previous, count: 10).joined(separator: ", "))]\n"
        }
        guard case .failure(let error) = Self.parse(text) else {
            Issue.record("a billion laughs was read")
            return
        }
        #expect(error.message.contains("aliases"))
    }

    @Test func deepNestingIsRefusedOnASmallStack() async {
        let texts: [String] = [String(repeating: "[", count: 100_000), String(repeating: "{a: ", count: 50_000)]
            + [(0..<2_000).map { String(repeating: " ", count: $0) + "k:\n" }.joined()]
            + [(0..<2_000).map { String(repeating: " ", count: $0 * 2) + "- \n" }.joined()]
        // A worker thread's stack, as the loader's parallel reads get.
        for text in texts {
            let result = await onOwnThread(stackSize: 512 * 1024) { Self.parse(text) }
            guard case .failure(let error) = result else {
                Issue.record("nesting \(text.prefix(8))… was read")
                continue
            }
            #expect(error.message.contains("nesting"))
        }
    }
}
