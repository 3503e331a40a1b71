/// LSP `TextDocumentPositionParams`: a document and a cursor in it.
public struct TextDocumentPositionParams: Codable, Hashable, Sendable {
    public var textDocument: TextDocumentIdentifier
    public var position: Position
}
