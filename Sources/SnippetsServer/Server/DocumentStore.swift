import SnippetsCore

/// An open document as the client last described it.
public struct TextDocument: Sendable, Hashable {
    public var uri: String
    public var languageID: String
    public var version: Int
    public var text: String

    public init(uri: String, languageID: String, version: Int, text: String) {
        self.uri = uri
        self.languageID = languageID
        self.version = version
        self.text = text
    }

    /// Applies one `didChange` content change; columns count code units of `encoding`.
    public mutating func apply(_ change: DidChangeTextDocumentParams.ContentChange, encoding: PositionEncoding) {
        guard let range = change.range else {
            text = change.text
            return
        }
        let table = LineTable(text)
        let start = table.utf8Offset(of: range.start, in: encoding)
        let end = max(start, table.utf8Offset(of: range.end, in: encoding))
        var bytes = Array(text.utf8)
        bytes.replaceSubrange(start..<end, with: Array(change.text.utf8))
        text = String(decoding: bytes, as: UTF8.self)
    }
}

/// The documents the client has open, by URI. A value: handlers get a copy.
public struct DocumentStore: Sendable {
    public private(set) var documents: [String: TextDocument] = [:]

    /// An empty store.
    public init() {}

    /// The open document at `uri`.
    public subscript(uri: String) -> TextDocument? { documents[uri] }

    /// Records an opened document.
    public mutating func open(_ document: TextDocument) { documents[document.uri] = document }

    /// Applies changes in order; unknown documents are ignored (the client broke the protocol, nothing to edit).
    public mutating func change(_ params: DidChangeTextDocumentParams, encoding: PositionEncoding) {
        guard var document = documents[params.textDocument.uri] else { return }
        for change in params.contentChanges { document.apply(change, encoding: encoding) }
        if let version = params.textDocument.version { document.version = version }
        documents[document.uri] = document
    }

    /// Forgets a closed document.
    public mutating func close(uri: String) { documents[uri] = nil }
}
