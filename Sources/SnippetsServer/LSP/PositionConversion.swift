import SnippetsCore

// The one folder where core positions and wire positions meet. Every offset <-> Position conversion goes through
// core's `LineTable`, which owns the encoding arithmetic.

extension LineTable {
    /// The UTF-8 offset of an LSP `Position` in `encoding` (clamped as LSP asks).
    public func utf8Offset(of position: Position, in encoding: PositionEncoding) -> Int {
        utf8Offset(line: position.line, column: position.character, in: encoding)
    }

    /// The LSP `Position` of a UTF-8 offset in `encoding`.
    public func lspPosition(ofUTF8Offset offset: Int, in encoding: PositionEncoding) -> Position {
        Position(sourcePosition: position(ofUTF8Offset: offset), in: encoding)
    }
}

extension LineTable.Editor {
    /// Replaces an LSP range (columns in the editor's encoding) with `text`.
    public mutating func replace(_ range: LSPRange, with text: String) {
        replace(
            startLine: range.start.line, startColumn: range.start.character, endLine: range.end.line,
            endColumn: range.end.character, with: text)
    }
}

extension Position {
    /// The wire position of a core position, with the column in `encoding`.
    public init(sourcePosition: SourcePosition, in encoding: PositionEncoding) {
        self.init(line: sourcePosition.line, character: sourcePosition.column(in: encoding))
    }
}

extension LSPRange {
    /// The wire range of a core range, with columns in `encoding`.
    public init(sourceRange: SourceRange, in encoding: PositionEncoding) {
        self.init(
            start: Position(sourcePosition: sourceRange.start, in: encoding),
            end: Position(sourcePosition: sourceRange.end, in: encoding))
    }
}
