/// A position in a source file, kept in every encoding an LSP client may negotiate so that no file has to be
/// re-read to answer in the client's encoding. `line` and the columns are zero-based.
public struct SourcePosition: Hashable, Comparable, Sendable {
    public var line: Int
    /// Column in UTF-8 code units.
    public var utf8Column: Int
    /// Column in UTF-16 code units (LSP's default).
    public var utf16Column: Int
    /// Column in Unicode scalars (UTF-32 code units).
    public var scalarColumn: Int

    public init(line: Int, utf8Column: Int, utf16Column: Int, scalarColumn: Int) {
        self.line = line
        self.utf8Column = utf8Column
        self.utf16Column = utf16Column
        self.scalarColumn = scalarColumn
    }

    /// A position on an ASCII-only line, where every encoding agrees.
    public init(line: Int, asciiColumn: Int) {
        self.init(line: line, utf8Column: asciiColumn, utf16Column: asciiColumn, scalarColumn: asciiColumn)
    }

    /// The column in code units of `encoding`.
    public func column(in encoding: PositionEncoding) -> Int {
        switch encoding {
        case .utf8: utf8Column
        case .utf16: utf16Column
        case .utf32: scalarColumn
        }
    }

    public static func < (lhs: SourcePosition, rhs: SourcePosition) -> Bool {
        (lhs.line, lhs.utf8Column) < (rhs.line, rhs.utf8Column)
    }
}

/// A half-open range in a source file.
public struct SourceRange: Hashable, Sendable {
    public var start: SourcePosition
    public var end: SourcePosition

    public init(start: SourcePosition, end: SourcePosition) {
        self.start = start
        self.end = end
    }
}

/// A range in a file named by URI (`file:///...`).
public struct SourceLocation: Hashable, Sendable {
    public var uri: String
    public var range: SourceRange

    public init(uri: String, range: SourceRange) {
        self.uri = uri
        self.range = range
    }
}

extension SourceLocation {
    /// `path:line` as people and compilers write it: the file's path (decoded from its `file://` URI) and the
    /// 1-based line where the entry starts.
    public var pathAndLine: String { Self.pathAndLine(uri: uri, line: range.start.line) }

    /// `path:line` for a URI and a zero-based line.
    public static func pathAndLine(uri: String, line: Int) -> String {
        pathAndLine(path: DocumentURI(uri).displayPath, line: line)
    }

    /// `path:line` for a path already decoded from its URI and a zero-based line.
    public static func pathAndLine(path: String, line: Int) -> String {
        "\(path):\(line + 1)"
    }
}
