/// `workspace/didChangeWorkspaceFolders` params.
public struct DidChangeWorkspaceFoldersParams: Decodable, Sendable {
    /// The folders added and removed.
    public struct Event: Decodable, Sendable {
        public var added: [InitializeParams.WorkspaceFolder]
        public var removed: [InitializeParams.WorkspaceFolder]
    }

    public var event: Event
}
