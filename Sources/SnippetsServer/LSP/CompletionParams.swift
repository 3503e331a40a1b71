/// `textDocument/completion` params.
public struct CompletionParams: Codable, Sendable {
    public var textDocument: TextDocumentIdentifier
    public var position: Position
}
