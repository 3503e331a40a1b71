/// LSP `CodeAction`.
public struct CodeAction: Codable, Hashable, Sendable {
    /// What the menu shows, e.g. "Ask snippets: how do I …".
    public var title: String
    /// `refactor.rewrite` (ask) or `refactor.extract` (save).
    public var kind: String?
    /// Unused by this server; kept so a client's action round-trips through resolve.
    public var isPreferred: Bool?
    /// Present at once for clients that cannot resolve, else filled in by `codeAction/resolve`.
    public var edit: WorkspaceEdit?
    /// Runs after the edit: shows the answer, or saves the selection.
    public var command: LSPCommand?
    /// What `codeAction/resolve` needs to compute the edit.
    public var data: JSONValue?
}
