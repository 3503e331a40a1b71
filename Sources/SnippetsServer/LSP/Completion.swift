/// `textDocument/completion` params.
public struct CompletionParams: Codable, Sendable {
    public var textDocument: TextDocumentIdentifier
    public var position: Position
}

/// LSP `InsertReplaceEdit`: what to replace when inserting vs replacing.
public struct InsertReplaceEdit: Codable, Hashable, Sendable {
    public var newText: String
    public var insert: LSPRange
    public var replace: LSPRange
}

/// A completion item's edit: a plain `TextEdit` or, for clients that support it, an `InsertReplaceEdit`.
public enum CompletionTextEdit: Codable, Hashable, Sendable {
    case textEdit(TextEdit)
    case insertReplace(InsertReplaceEdit)

    public init(from decoder: any Decoder) throws {
        if let edit = try? InsertReplaceEdit(from: decoder) {
            self = .insertReplace(edit)
        } else {
            self = .textEdit(try TextEdit(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .textEdit(let edit): try edit.encode(to: encoder)
        case .insertReplace(let edit): try edit.encode(to: encoder)
        }
    }
}

/// What the server keeps in an item's `data` to resolve it later.
public struct CompletionItemData: Codable, Hashable, Sendable {
    /// The snippet's `SnippetID` raw value.
    public var snippetID: String
    /// The document the completion was asked in (for its language).
    public var uri: String?
}

/// LSP `CompletionItemLabelDetails`: shown beside the label by clients that support it (VS Code shows
/// `description` right-aligned in the row).
public struct CompletionItemLabelDetails: Codable, Hashable, Sendable {
    public var detail: String?
    /// The snippet's library layer.
    public var description: String?
}

/// LSP `CompletionItem` (the fields this server uses).
public struct CompletionItem: Codable, Hashable, Sendable {
    public var label: String
    /// The layer the snippet came from, for clients with `labelDetailsSupport`.
    public var labelDetails: CompletionItemLabelDetails? = nil
    /// Always 15 (Snippet).
    public var kind: Int = 15
    public var detail: String?
    public var documentation: MarkupContent?
    public var sortText: String?
    public var filterText: String?
    /// 1 plain text, 2 snippet.
    public var insertTextFormat: Int?
    /// 2 (adjustIndentation) on multi-line items for clients that support it: the body's lines keep their own
    /// indentation relative to the line they go into, and the editor does not re-indent them by its mode's rules.
    public var insertTextMode: Int?
    public var textEdit: CompletionTextEdit?
    public var data: CompletionItemData?
}

/// LSP `CompletionList`.
public struct CompletionList: Codable, Hashable, Sendable {
    public var isIncomplete: Bool
    public var items: [CompletionItem]
}
