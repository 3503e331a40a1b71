// libFuzzer target: `LineTable.Editor` (Sources/SnippetsCore/Text/LineTableEditor.swift), a didChange batch in one
// pass, checked against each edit applied to a fresh copy of the text through `LineTable.utf8Offset`.
@testable import SnippetsCore

/// The first byte picks the encoding and the number of edits, then five bytes per edit (start line and column, end
/// line and column, how many characters to insert); the rest is the text, and inserted text is taken from it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTextEdits(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let first = bytes.first else { return 0 }
    let encoding = PositionEncoding.allCases[Int(first >> 4) % PositionEncoding.allCases.count]
    let editCount = Int(first & 0x0F)
    guard bytes.count >= 1 + 5 * editCount else { return 0 }
    let text = String(decoding: bytes[(1 + 5 * editCount)...], as: UTF8.self)
    let characters = Array(text)
    var editor = LineTable.Editor(LineTable(text), encoding: encoding)
    var expected = text
    for index in 0..<editCount {
        let field = bytes[(1 + 5 * index)..<(6 + 5 * index)].map { Int($0) }
        let (startLine, startColumn, endLine, endColumn) = (field[0] % 24 - 2, field[1] % 40 - 2, field[2] % 24 - 2, field[3] % 40 - 2)
        let insertion = characters.isEmpty ? "" : String(characters[(field[4] % characters.count)...].prefix(field[4] % 6))
        editor.replace(startLine: startLine, startColumn: startColumn, endLine: endLine, endColumn: endColumn, with: insertion)
        let table = LineTable(expected)
        let from = table.utf8Offset(line: startLine, column: startColumn, in: encoding)
        let to = max(from, table.utf8Offset(line: endLine, column: endColumn, in: encoding))
        var utf8 = Array(expected.utf8)
        utf8.replaceSubrange(from..<to, with: Array(insertion.utf8))
        expected = String(decoding: utf8, as: UTF8.self)
    }
    let actual = editor.text
    if actual != expected {
        fatalError("one pass gave \(actual.debugDescription), one by one \(expected.debugDescription)")
    }
    return 0
}
