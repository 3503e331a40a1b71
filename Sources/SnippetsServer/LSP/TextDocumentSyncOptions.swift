/// `ServerCapabilities.textDocumentSync`: which document notifications the server wants, and how changes come.
public struct TextDocumentSyncOptions: Codable, Hashable, Sendable {
    /// `didOpen` and `didClose` are sent.
    public var openClose: Bool?
    /// How `didChange` carries a change.
    public var change: TextDocumentSyncKind?

    public init(openClose: Bool? = nil, change: TextDocumentSyncKind? = nil) {
        self.openClose = openClose
        self.change = change
    }
}
