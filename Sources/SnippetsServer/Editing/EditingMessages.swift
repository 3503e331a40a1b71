import SnippetsCore

/// The argument of `snippets.ask` (and the `data` of an unresolved ask action).
public struct AskCommandArguments: Codable, Hashable, Sendable {
    /// The question.
    public var question: String
    /// The document asked from: its language scopes the search.
    public var textDocument: TextDocumentIdentifier?
    /// When given (with `textDocument`), this range is replaced by the best cited snippet as plain text.
    public var range: LSPRange?

    public init(question: String, textDocument: TextDocumentIdentifier? = nil, range: LSPRange? = nil) {
        self.question = question
        self.textDocument = textDocument
        self.range = range
    }
}

/// The argument of `snippets.saveSelection`.
public struct SaveSelectionArguments: Codable, Hashable, Sendable {
    /// The open document the selection is in.
    public var textDocument: TextDocumentIdentifier
    /// The selection.
    public var range: LSPRange
    /// The trigger; derived from the selection when absent.
    public var trigger: String?
    /// The title; derived from the selection's first line when absent.
    public var title: String?
    /// An optional description.
    public var description: String?
    /// When true, nothing is written: the result holds the names and file a save would use now (the derived
    /// defaults an editor shows when it asks the user for a trigger and a title).
    public var preview: Bool?
}

/// What `snippets.saveSelection` replies when the snippet was saved.
public struct SaveSelectionResult: Codable, Hashable, Sendable {
    /// The file written.
    public var path: String
    /// The new snippet's id.
    public var id: String
    /// Its title (given or derived).
    public var title: String
    /// Its trigger (given or derived).
    public var trigger: String
    /// Whether the snippet is in service now (false when the file is outside the library paths).
    public var isInLibrary: Bool
}

/// `snippets/snippetText` params (LSP Extension): a snippet by id, for the document it will be inserted into.
public struct SnippetTextParams: Codable, Hashable, Sendable {
    /// A snippet id from `snippets/ask` (`citations[].id`, `candidates[].id`).
    public var id: String
    /// The document it will be inserted into: variables are resolved for it.
    public var textDocument: TextDocumentIdentifier?
    /// Where it will be inserted.
    public var position: Position?
}

/// `snippets/snippetText` result (LSP Extension).
public struct SnippetTextResult: Codable, Hashable, Sendable {
    /// The id asked for.
    public var id: String
    /// The snippet's title.
    public var title: String
    /// LSP snippet text (tabstops kept; variables the server can compute resolved unless the client resolves them).
    public var snippet: String
    /// The same as plain text: placeholders' text, every variable resolved.
    public var text: String
    /// The snippet's entry in its file.
    public var location: LSPLocation
}
