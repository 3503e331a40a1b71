/// LSP `WorkspaceEdit`, in its `changes` form (plain text edits by document URI).
public struct WorkspaceEdit: Codable, Hashable, Sendable {
    /// Edits by document URI.
    public var changes: [String: [TextEdit]]
}
