/// `textDocument/didChange` params.
public struct DidChangeTextDocumentParams: Codable, Sendable {
    /// LSP `VersionedTextDocumentIdentifier`.
    public struct VersionedTextDocumentIdentifier: Codable, Sendable {
        public var uri: String
        public var version: Int?
    }

    /// One change: a range replaced by text, or (no range) the whole new text.
    public struct ContentChange: Codable, Sendable {
        public var range: LSPRange?
        public var text: String
    }

    public var textDocument: VersionedTextDocumentIdentifier
    public var contentChanges: [ContentChange]
}
