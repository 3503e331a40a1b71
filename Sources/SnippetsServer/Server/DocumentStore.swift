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
        apply([change], encoding: encoding)
    }

    /// Applies a `didChange` batch in order, in one pass over the text (`LineTable.Editor`): a batch of many
    /// edits (multi-cursor, replace-all) costs the document's size once, not once per edit.
    public mutating func apply(_ changes: [DidChangeTextDocumentParams.ContentChange], encoding: PositionEncoding) {
        if let last = changes.lastIndex(where: { $0.range == nil }) {
            // A whole-text change makes everything before it moot.
            if last == changes.count - 1 { return text = changes[last].text }
            return applyRanges(changes[(last + 1)...], to: LineTable(changes[last].text), encoding: encoding)
        }
        applyRanges(changes[...], to: lines, encoding: encoding)
    }

    private mutating func applyRanges(
        _ changes: ArraySlice<DidChangeTextDocumentParams.ContentChange>, to table: LineTable, encoding: PositionEncoding
    ) {
        guard !changes.isEmpty else { return text = table.text }
        var editor = LineTable.Editor(table, encoding: encoding)
        for change in changes {
            guard let range = change.range else { continue }
            editor.replace(range, with: change.text)
        }
        text = editor.text
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
        document.apply(params.contentChanges, encoding: encoding)
        if let version = params.textDocument.version { document.version = version }
        documents[document.uri] = document
    }

    /// Forgets a closed document.
    public mutating func close(uri: String) { documents[uri] = nil }
}
