/// `textDocument/didOpen` params.
public struct DidOpenTextDocumentParams: Codable, Sendable {
    /// LSP `TextDocumentItem`.
    public struct TextDocumentItem: Codable, Sendable {
        public var uri: String
        public var languageId: String
        public var version: Int
        public var text: String
    }

    public var textDocument: TextDocumentItem
}

/// `textDocument/didChange` params.
public struct DidChangeTextDocumentParams: Codable, Sendable {
    /// LSP `VersionedTextDocumentIdentifier`.
    public struct VersionedTextDocumentIdentifier: Codable, Sendable {
        public var uri: String
        public var version: Int?
    }

    /// One change: a range replaced by text, or (no range) the whole new text.
    public struct ContentChange: Codable, Sendable {
        public var range: LSPRange?
        public var text: String
    }

    public var textDocument: VersionedTextDocumentIdentifier
    public var contentChanges: [ContentChange]
}

/// `textDocument/didClose` params.
public struct DidCloseTextDocumentParams: Codable, Sendable {
    public var textDocument: TextDocumentIdentifier
}

/// `workspace/didChangeWatchedFiles` params.
public struct DidChangeWatchedFilesParams: Codable, Sendable {
    /// One changed file (type 1 created, 2 changed, 3 deleted).
    public struct FileEvent: Codable, Sendable {
        public var uri: String
        public var type: Int
    }

    public var changes: [FileEvent]
}

/// `$/cancelRequest` params.
public struct CancelParams: Decodable, Sendable {
    public var id: JSONValue
}

/// `workspace/didChangeWorkspaceFolders` params.
public struct DidChangeWorkspaceFoldersParams: Decodable, Sendable {
    /// The folders added and removed.
    public struct Event: Decodable, Sendable {
        public var added: [InitializeParams.WorkspaceFolder]
        public var removed: [InitializeParams.WorkspaceFolder]
    }

    public var event: Event
}
