/// LSP `Range`: half-open, from `start` to `end`.
public struct LSPRange: Codable, Hashable, Sendable {
    public var start: Position
    public var end: Position

    public init(start: Position, end: Position) {
        self.start = start
        self.end = end
    }
}
