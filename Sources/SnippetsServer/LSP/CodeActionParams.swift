/// LSP `CodeActionParams` (the `context` is not read: the actions depend only on the text and the range).
public struct CodeActionParams: Codable, Hashable, Sendable {
    /// The document.
    public var textDocument: TextDocumentIdentifier
    /// The selection, or the cursor as an empty range.
    public var range: LSPRange
}
