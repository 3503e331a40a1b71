import Testing
@testable import SnippetsCore

@Suite struct LineTableTests {
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
}
