import SnippetsCore

/// An LSP `Location`: a range in a document named by URI.
public struct LSPLocation: Codable, Hashable, Sendable {
    public var uri: String
    public var range: LSPRange

    public init(uri: String, range: LSPRange) {
        self.uri = uri
        self.range = range
    }

    /// The wire location of a core location, with columns in `encoding`.
    public init(sourceLocation: SourceLocation, in encoding: PositionEncoding) {
        self.init(uri: sourceLocation.uri, range: LSPRange(sourceRange: sourceLocation.range, in: encoding))
    }
}
