/// LSP `CompletionItemKind`: the icon a client shows beside an item. The server sends only `snippet`.
public struct CompletionItemKind: RawRepresentable, Codable, Hashable, Sendable {
    public var rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// 15: a snippet.
    public static let snippet = CompletionItemKind(rawValue: 15)
}
