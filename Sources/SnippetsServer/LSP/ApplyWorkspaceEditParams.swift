/// LSP `ApplyWorkspaceEditParams` (server → client).
struct ApplyWorkspaceEditParams: Encodable, Sendable {
    var label: String
    var edit: WorkspaceEdit
}
