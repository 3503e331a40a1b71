/// What the server keeps in an item's `data` to resolve it later.
public struct CompletionItemData: Codable, Hashable, Sendable {
    /// The snippet's `SnippetID` raw value.
    public var snippetID: String
    /// The document the completion was asked in (for its language).
    public var uri: String?
}
