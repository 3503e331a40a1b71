import SnippetsCore

/// An open document as the client last described it.
public struct TextDocument: Sendable, Hashable {
    public var uri: String
    public var languageID: String
    public var version: Int
    public var text: String {
        didSet { lines = LineTable(text) }
    }
    /// The line table of `text`, rebuilt only when the text changes, so that a request never rescans the
    /// document (a completion reads one line of it).
    public private(set) var lines: LineTable

    public init(uri: String, languageID: String, version: Int, text: String) {
        self.uri = uri
        self.languageID = languageID
        self.version = version
        self.text = text
        self.lines = LineTable(text)
    }

    // `lines` follows from `text`, so equality and hashing leave it out.
    public static func == (left: TextDocument, right: TextDocument) -> Bool {
        left.uri == right.uri && left.languageID == right.languageID && left.version == right.version
            && left.text == right.text
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(uri)
        hasher.combine(languageID)
        hasher.combine(version)
        hasher.combine(text)
    }

    /// Applies one `didChange` content change; columns count code units of `encoding`.
    public mutating func apply(_ change: DidChangeTextDocumentParams.ContentChange, encoding: PositionEncoding) {
        guard let range = change.range else {
            text = change.text
            return
        }
        let start = lines.utf8Offset(of: range.start, in: encoding)
        let end = max(start, lines.utf8Offset(of: range.end, in: encoding))
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
