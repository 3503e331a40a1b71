/// LSP `CompletionItemLabelDetails`: shown beside the label by clients that support it (VS Code shows
/// `description` right-aligned in the row).
public struct CompletionItemLabelDetails: Codable, Hashable, Sendable {
    public var detail: String?
    /// The snippet's library layer.
    public var description: String?
}
