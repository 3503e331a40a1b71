/// LSP `Position`: a zero-based line and a column counted in the negotiated `PositionEncoding`.
public struct Position: Codable, Hashable, Sendable {
    public var line: Int
    public var character: Int

    public init(line: Int, character: Int) {
        self.line = line
        self.character = character
    }

    /// The most a line or character may be: LSP's `uinteger` (2^31 - 1).
    public static let maximumComponent = Int(Int32.max)

    /// Decodes a client's position with both numbers clamped to `0...maximumComponent` (past the end already means
    /// the end of the line or text), so no arithmetic on a client's number can overflow.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func component(_ key: CodingKeys) throws -> Int {
            if let value = try? container.decode(Int.self, forKey: key) { return min(max(value, 0), Self.maximumComponent) }
            let number = try container.decode(Double.self, forKey: key)
            guard number.isFinite, number.rounded() == number else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not a whole number")
            }
            return number < 0 ? 0 : Int(min(number, Double(Self.maximumComponent)))
        }
        line = try component(.line)
        character = try component(.character)
    }

    private enum CodingKeys: String, CodingKey {
        case line, character
    }
}

/// LSP `Range`: half-open, from `start` to `end`.
public struct LSPRange: Codable, Hashable, Sendable {
    public var start: Position
    public var end: Position

    public init(start: Position, end: Position) {
        self.start = start
        self.end = end
    }
}

/// LSP `TextEdit`.
public struct TextEdit: Codable, Hashable, Sendable {
    public var range: LSPRange
    public var newText: String

    public init(range: LSPRange, newText: String) {
        self.range = range
        self.newText = newText
    }
}

/// LSP `TextDocumentIdentifier`.
public struct TextDocumentIdentifier: Codable, Hashable, Sendable {
    public var uri: String
}

/// LSP `TextDocumentPositionParams`: a document and a cursor in it.
public struct TextDocumentPositionParams: Codable, Hashable, Sendable {
    public var textDocument: TextDocumentIdentifier
    public var position: Position
}

/// LSP `MarkupContent`.
public struct MarkupContent: Codable, Hashable, Sendable {
    public var kind: String
    public var value: String

    /// Markdown content.
    public static func markdown(_ value: String) -> MarkupContent { MarkupContent(kind: "markdown", value: value) }
}

/// A result that is JSON `null` (for `shutdown`).
public struct NullResult: Encodable, Sendable {
    /// The null result.
    public init() {}
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}

/// Params that are ignored (for methods that take none).
public struct IgnoredParams: Decodable, Sendable {
    public init(from decoder: any Decoder) throws {}
}
