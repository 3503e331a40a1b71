/// `textDocument/didClose` params.
public struct DidCloseTextDocumentParams: Codable, Sendable {
    public var textDocument: TextDocumentIdentifier
}
