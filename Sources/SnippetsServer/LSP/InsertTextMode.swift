/// LSP `InsertTextMode`: how the client treats the leading whitespace of an item's later lines.
public struct InsertTextMode: RawRepresentable, Codable, Hashable, Sendable {
    public var rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// 1: inserted as it is; the client does not re-indent.
    public static let asIs = InsertTextMode(rawValue: 1)

    /// 2: each later line keeps its indentation relative to the line the item goes into.
    public static let adjustIndentation = InsertTextMode(rawValue: 2)
}
