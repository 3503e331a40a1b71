import Testing

@testable import SnippetsCore

/// `LineTable.Editor`: a batch of edits applied in one pass lands exactly where applying each edit to a fresh copy
/// of the text would, and costs the text's size once rather than once per edit.
struct LineTableEditorTests {
    /// One edit, in the coordinates of the text the edits before it left.
    struct Edit: CustomStringConvertible {
        var startLine, startColumn, endLine, endColumn: Int
        var text: String
        var description: String { "(\(startLine),\(startColumn))-(\(endLine),\(endColumn)) -> \(text.debugDescription)" }
    }

    /// The reference: each edit resolved through a new `LineTable` and applied to a new copy of the text.
    static func applyOneByOne(_ edits: [Edit], to text: String, encoding: PositionEncoding) -> String {
        var text = text
        for edit in edits {
            let table = LineTable(text)
            let start = table.utf8Offset(line: edit.startLine, column: edit.startColumn, in: encoding)
            let end = max(start, table.utf8Offset(line: edit.endLine, column: edit.endColumn, in: encoding))
            var bytes = Array(text.utf8)
            bytes.replaceSubrange(start..<end, with: Array(edit.text.utf8))
            text = String(decoding: bytes, as: UTF8.self)
        }
        return text
    }

    static func applyInOnePass(_ edits: [Edit], to text: String, encoding: PositionEncoding) -> (text: String, cost: Int) {
        var editor = LineTable.Editor(LineTable(text), encoding: encoding)
        for edit in edits {
            editor.replace(
                startLine: edit.startLine, startColumn: edit.startColumn, endLine: edit.endLine, endColumn: edit.endColumn,
                with: edit.text)
        }
        return (editor.text, editor.bytesVisited)
    }

    /// A deterministic generator (SplitMix64), so a failure names a seed that reproduces it.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        mutating func text(_ length: Int) -> String {
            let pieces = ["a", "b", " ", "\n", "\r", "\r\n", "é", "😀", "漢", "\t"]
            return (0..<length).map { _ in pieces[next(pieces.count)] }.joined()
        }
    }

    @Test(arguments: PositionEncoding.allCases)
    func aBatchLandsWhereEditsOneByOneLand(encoding: PositionEncoding) {
        for seed in UInt64(0)..<250 {
            var random = Generator(state: seed)
            let original = random.text(random.next(40))
            var edits: [Edit] = []
            for _ in 0..<(1 + random.next(8)) {
                // Positions anywhere, also past the end, negative, and inside characters.
                func line() -> Int { random.next(12) - 1 }
                func column() -> Int { random.next(14) - 1 }
                edits.append(Edit(
                    startLine: line(), startColumn: column(), endLine: line(), endColumn: column(),
                    text: random.text(random.next(4))))
            }
            let expected = Self.applyOneByOne(edits, to: original, encoding: encoding)
            let actual = Self.applyInOnePass(edits, to: original, encoding: encoding).text
            #expect(actual == expected, "seed \(seed): \(original.debugDescription) \(edits)")
            if actual != expected { return }
        }
    }

    /// A multi-cursor edit on every few lines of a `lineCount`-line text, as VS Code sends it (last line first) or
    /// in document order with each position shifted by the edits before it; and the text it must give.
    static func multiCursorBatch(lines lineCount: Int, edits editCount: Int, reversed: Bool) -> (text: String, edits: [Edit], expected: String) {
        let lines = (0..<lineCount).map { "line \($0) with some text 😀 and more text here" }
        let step = lineCount / editCount
        var edits = (0..<editCount).map { Edit(startLine: $0 * step, startColumn: 5, endLine: $0 * step, endColumn: 9, text: "row\nnew ") }
        if reversed {
            edits.reverse()
        } else {
            // Each inserted line break moves the later lines down by one.
            for index in edits.indices {
                edits[index].startLine += index
                edits[index].endLine += index
            }
        }
        let expected = lines.indices.map { index in
            index % step == 0 && index / step < editCount ? lines[index].prefix(5) + "row\nnew " + lines[index].dropFirst(9) : lines[index]
        }
        return (lines.joined(separator: "\n"), edits, expected.joined(separator: "\n"))
    }

    @Test(arguments: [true, false])
    func aMultiCursorBatchLandsWhereEditsOneByOneLand(reversed: Bool) {
        let (text, edits, expected) = Self.multiCursorBatch(lines: 400, edits: 40, reversed: reversed)
        #expect(Self.applyOneByOne(edits, to: text, encoding: .utf16) == expected)
        #expect(Self.applyInOnePass(edits, to: text, encoding: .utf16).text == expected)
    }

    @Test(arguments: [true, false])
    func aBatchCostsTheTextOnceNotOncePerEdit(reversed: Bool) {
        var costs: [Int] = []
        for editCount in [50, 1_000] {
            let (text, edits, expected) = Self.multiCursorBatch(lines: 5_000, edits: editCount, reversed: reversed)
            let (result, cost) = Self.applyInOnePass(edits, to: text, encoding: .utf16)
            #expect(result == expected)
            costs.append(cost)
        }
        // 20 times the edits over the same 250 KB text: one by one that is 20 times the bytes (edits × size); in
        // one pass the text's size dominates (visited about twice) and each edit adds a few bytes.
        let ratio = Double(costs[1]) / Double(costs[0])
        #expect(ratio < 1.5, "bytes visited \(costs): ratio \(ratio)")
    }

    @Test(arguments: [true, false])
    func editsAlongOneLongLineDoNotRescanTheLine(reversed: Bool) {
        // A minified file: one 60,000-column line; replace-all of 500 matches (an 'a' every tenth repeat).
        let repeats = 5_000
        let text = String(repeating: "abcdefghij😀", count: repeats)
        var edits = (0..<500).map { Edit(startLine: 0, startColumn: $0 * 120, endLine: 0, endColumn: $0 * 120 + 1, text: "X") }
        if reversed { edits.reverse() }
        let expected = (0..<repeats).map { $0 % 10 == 0 ? "Xbcdefghij😀" : "abcdefghij😀" }.joined()
        let (result, cost) = Self.applyInOnePass(edits, to: text, encoding: .utf16)
        #expect(result == expected)
        #expect(cost < 4 * text.utf8.count, "bytes visited: \(cost) for a \(text.utf8.count)-byte text")
    }
}
