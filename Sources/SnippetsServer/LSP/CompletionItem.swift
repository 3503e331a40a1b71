/// LSP `CompletionItem` (the fields this server uses).
public struct CompletionItem: Codable, Hashable, Sendable {
    public var label: String
    /// The layer the snippet came from, for clients with `labelDetailsSupport`.
    public var labelDetails: CompletionItemLabelDetails? = nil
    /// Always `snippet`.
    public var kind: CompletionItemKind = .snippet
    public var detail: String?
    public var documentation: MarkupContent?
    public var sortText: String?
    public var filterText: String?
    /// Plain text, or snippet syntax for the client's engine.
    public var insertTextFormat: InsertTextFormat?
    /// `adjustIndentation` on multi-line items for clients that support it: the body's lines keep their own
    /// indentation relative to the line they go into, and the editor does not re-indent them by its mode's rules.
    public var insertTextMode: InsertTextMode?
    public var textEdit: CompletionTextEdit?
    /// Edits beside `textEdit`, made when the item is accepted: for Neovim, the typed words before the one its
    /// `textEdit` replaces (see `CompletionBuilder`'s one-start-column items).
    public var additionalTextEdits: [TextEdit]? = nil
    public var data: CompletionItemData?
}
