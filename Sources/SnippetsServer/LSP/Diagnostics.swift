/// LSP `Diagnostic` (the fields this server uses).
public struct Diagnostic: Codable, Hashable, Sendable {
    public var range: LSPRange
    /// 1 error, 2 warning, 3 information, 4 hint.
    public var severity: Int
    public var code: String?
    public var source: String
    public var message: String
}

/// `textDocument/publishDiagnostics` params.
public struct PublishDiagnosticsParams: Codable, Hashable, Sendable {
    public var uri: String
    public var diagnostics: [Diagnostic]
}

/// `window/showMessage` and `window/logMessage` params.
public struct MessageParams: Codable, Hashable, Sendable {
    public var type: MessageType
    public var message: String
}
