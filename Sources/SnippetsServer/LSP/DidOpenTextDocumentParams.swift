/// `textDocument/didOpen` params.
public struct DidOpenTextDocumentParams: Codable, Sendable {
    /// LSP `TextDocumentItem`.
    public struct TextDocumentItem: Codable, Sendable {
        public var uri: String
        public var languageId: String
        public var version: Int
        public var text: String
    }

    public var textDocument: TextDocumentItem
}
