/// LSP `TextDocumentIdentifier`.
public struct TextDocumentIdentifier: Codable, Hashable, Sendable {
    public var uri: String
}
