/// LSP `InsertReplaceEdit`: what to replace when inserting vs replacing.
public struct InsertReplaceEdit: Codable, Hashable, Sendable {
    public var newText: String
    public var insert: LSPRange
    public var replace: LSPRange
}
