/// `textDocument/publishDiagnostics` params.
public struct PublishDiagnosticsParams: Codable, Hashable, Sendable {
    public var uri: String
    public var diagnostics: [Diagnostic]
}
