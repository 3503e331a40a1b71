import SnippetsCore

/// The `capabilities` of the `initialize` reply (the members this server sends). A handler contributes the part
/// for its own method (`RequestHandler.serverCapabilities`); the server adds the rest at `initialize`.
public struct ServerCapabilities: Codable, Hashable, Sendable {
    /// The position encoding every `Position` uses.
    public var positionEncoding: PositionEncoding?
    public var textDocumentSync: TextDocumentSyncOptions?
    /// Absent for a client that registers completion after `initialize` (`ClientRegistrations`).
    public var completionProvider: CompletionOptions?
    public var codeActionProvider: CodeActionOptions?
    public var executeCommandProvider: ExecuteCommandOptions?
    public var workspace: WorkspaceServerCapabilities?
    /// LSP extensions (`snippetsAsk`, `snippetsVerifyCitations`), merged member by member.
    public var experimental: [String: JSONValue]?

    public init(
        positionEncoding: PositionEncoding? = nil, textDocumentSync: TextDocumentSyncOptions? = nil,
        completionProvider: CompletionOptions? = nil, codeActionProvider: CodeActionOptions? = nil,
        executeCommandProvider: ExecuteCommandOptions? = nil, workspace: WorkspaceServerCapabilities? = nil,
        experimental: [String: JSONValue]? = nil
    ) {
        self.positionEncoding = positionEncoding
        self.textDocumentSync = textDocumentSync
        self.completionProvider = completionProvider
        self.codeActionProvider = codeActionProvider
        self.executeCommandProvider = executeCommandProvider
        self.workspace = workspace
        self.experimental = experimental
    }

    /// These capabilities with `other`'s added: a member `other` sets replaces this one's, except `experimental`,
    /// whose members are merged (`other`'s win).
    public func merging(_ other: ServerCapabilities) -> ServerCapabilities {
        var merged = self
        merged.positionEncoding = other.positionEncoding ?? positionEncoding
        merged.textDocumentSync = other.textDocumentSync ?? textDocumentSync
        merged.completionProvider = other.completionProvider ?? completionProvider
        merged.codeActionProvider = other.codeActionProvider ?? codeActionProvider
        merged.executeCommandProvider = other.executeCommandProvider ?? executeCommandProvider
        merged.workspace = other.workspace ?? workspace
        if let extra = other.experimental {
            merged.experimental = (experimental ?? [:]).merging(extra) { _, contributed in contributed }
        }
        return merged
    }
}
