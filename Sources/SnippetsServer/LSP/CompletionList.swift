/// LSP `CompletionList`.
public struct CompletionList: Codable, Hashable, Sendable {
    public var isIncomplete: Bool
    public var items: [CompletionItem]
}
