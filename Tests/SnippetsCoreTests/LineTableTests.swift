import Testing
@testable import SnippetsCore

@Suite struct LineTableTests {
    /// Every scalar with its UTF-8 offset: the straightforward definitions below walk these.
    static func scalars(_ text: String) -> [(offset: Int, scalar: Unicode.Scalar)] {
        var offset = 0
        return text.unicodeScalars.map { scalar in
            defer { offset += scalar.utf8.count }
            return (offset, scalar)
        }
    }

    /// A position by walking the line from its start, counting the characters wholly before `offset`.
    static func naivePosition(_ text: String, _ offset: Int) -> SourcePosition {
        let table = LineTable(text)
        let offset = max(0, min(offset, text.utf8.count))
        let line = table.line(containingUTF8Offset: offset)
        var position = SourcePosition(line: line, asciiColumn: 0)
        for (start, scalar) in scalars(text) where start >= table.lineStarts[line] && start + scalar.utf8.count <= offset {
            position.utf8Column += scalar.utf8.count
            position.utf16Column += scalar.utf16.count
            position.scalarColumn += 1
        }
        return position
    }

    /// The furthest character boundary at most `count` units of `encoding` after `offset`, by walking.
    static func naiveAdvance(_ text: String, _ count: Int, _ encoding: PositionEncoding, from offset: Int) -> Int {
        let clamped = max(0, min(offset, text.utf8.count))
        let all = scalars(text)
        let start = all.last(where: { $0.offset <= clamped })?.offset ?? 0
        var result = clamped == text.utf8.count ? clamped : start
        guard count > 0 else { return result }
        var remaining = count
        for (_, scalar) in all.drop(while: { $0.offset < result }) {
            let width = encoding.width(of: scalar)
            guard remaining >= width else { break }
            remaining -= width
            result += scalar.utf8.count
        }
        return result
    }

    @Test(arguments: [
        "plain ascii\nlines\r\nand more",
        "é😀\nпривет мир 😀😀 x\r\n\r中文字符" + String(repeating: "ab😀é", count: 20),
        String(repeating: "😀", count: 64), String(repeating: "é", count: 32), "",
    ])
    func checkpointedConversionsAgreeWithWalkingTheLine(text: String) {
        let table = LineTable(text)
        let length = text.utf8.count
        for offset in -1...(length + 1) {
            #expect(table.position(ofUTF8Offset: offset) == Self.naivePosition(text, offset), "offset \(offset)")
        }
        for encoding in PositionEncoding.allCases {
            for offset in stride(from: 0, through: length, by: 5) {
                for count in [0, 1, 2, 3, 65, length, Int.max] {
                    #expect(
                        table.utf8Offset(advancing: count, in: encoding, from: offset)
                            == Self.naiveAdvance(text, count, encoding, from: offset),
                        "\(encoding) \(count) from \(offset)")
                }
            }
        }
    }

    /// Line starts by walking the bytes: after each `\n`, `\r\n` or lone `\r`.
    static func naiveLineStarts(_ text: String) -> [Int] {
        let bytes = Array(text.utf8)
        var starts = [0]
        var index = 0
        while index < bytes.count {
            if bytes[index] == 13, index + 1 < bytes.count, bytes[index + 1] == 10 {
                index += 2
                starts.append(index)
            } else if bytes[index] == 10 || bytes[index] == 13 {
                index += 1
                starts.append(index)
            } else {
                index += 1
            }
        }
        return starts
    }

    /// Texts with and without a CR (the second are searched for LFs a block at a time) and with a first non-ASCII
    /// byte on either side of an eight-byte boundary.
    @Test(arguments: [
        "", "\n", "\n\n", "a\nb\n", "abcdefgh\nijklmnopé\nq", "abcdefghé", "abcdefg\u{7F}", "x\r", "\r\n\r\n\n\r",
        "a\r\nb\rc\nd", String(repeating: "line\n", count: 100) + "end", String(repeating: "ab\r\n", count: 50),
        String(repeating: "1234567", count: 9) + "😀\n",
    ])
    func lineStartsAgreeWithWalkingTheBytes(text: String) {
        let table = LineTable(text)
        #expect(table.lineStarts == Self.naiveLineStarts(text))
        for offset in 0...text.utf8.count {
            #expect(table.position(ofUTF8Offset: offset) == Self.naivePosition(text, offset), "offset \(offset)")
        }
    }

    @Test func positionsCountEachEncoding() {
        let table = LineTable("ab\r\nпривет 😀x\n日本語\u{301}z")
        #expect(table.lineCount == 3)
        #expect(table.content(ofLine: 0) == "ab")
        #expect(table.content(ofLine: 1) == "привет 😀x")
        // "x" after the emoji on line 1.
        let xOffset = table.utf8Offset(line: 1, column: 9, in: .utf16)
        #expect(table.slice(xOffset..<(xOffset + 1)) == "x")
        let position = table.position(ofUTF8Offset: xOffset)
        #expect(position == SourcePosition(line: 1, utf8Column: 17, utf16Column: 9, scalarColumn: 8))
        #expect(table.utf8Offset(line: 1, column: 8, in: .utf32) == xOffset)
        #expect(table.utf8Offset(line: 1, column: 17, in: .utf8) == xOffset)
        // A column in the middle of the surrogate pair rounds down to the emoji's start.
        #expect(table.utf8Offset(line: 1, column: 8, in: .utf16) == xOffset - 4)
        // Past the end of the line is the end of the line; past the last line is the end of the text.
        #expect(table.utf8Offset(line: 0, column: 99, in: .utf16) == 2)
        #expect(table.utf8Offset(line: 9, column: 0, in: .utf16) == table.text.utf8.count)
        // Combining mark counts as its own unit.
        #expect(table.position(ofUTF8Offset: table.text.utf8.count).utf16Column == 5)
    }

    /// A CR, then a non-ASCII character, then an LF: two line breaks, not one CRLF (the non-ASCII fast path once kept
    /// the CR pending across the character, so the LF replaced the line the CR began).
    @Test func aCharacterBetweenCRAndLFSeparatesThem() {
        let table = LineTable("a\ré\nb")
        #expect(table.lineCount == 3)
        #expect(table.content(ofLine: 1) == "é")
        #expect(table.content(ofLine: 2) == "b")
    }

    /// The eight-bytes-at-a-time check finds a non-ASCII byte wherever it stands, and none in ASCII text.
    @Test func nonASCIIBytesAreFoundAtEveryPlace() {
        for length in 0...20 {
            var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            #expect(!bytes.withUnsafeBufferPointer(ASCIIBytes.containsNonASCII), "length \(length)")
            for place in 0..<length {
                bytes[place] = 0x80
                #expect(bytes.withUnsafeBufferPointer(ASCIIBytes.containsNonASCII), "length \(length), place \(place)")
                bytes[place] = 0x7F
            }
        }
    }
}
