/// LSP `Diagnostic` (the fields this server uses).
public struct Diagnostic: Codable, Hashable, Sendable {
    public var range: LSPRange
    public var severity: DiagnosticSeverity
    public var code: String?
    public var source: String
    public var message: String
}
