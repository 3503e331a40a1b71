/// LSP `InsertTextFormat`: whether an item's text is plain or snippet syntax (tabstops, placeholders, variables).
public struct InsertTextFormat: RawRepresentable, Codable, Hashable, Sendable {
    public var rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// 1: inserted as it is.
    public static let plainText = InsertTextFormat(rawValue: 1)

    /// 2: LSP snippet syntax, expanded by the client's snippet engine.
    public static let snippet = InsertTextFormat(rawValue: 2)
}
