/// `ServerCapabilities.workspace`.
public struct WorkspaceServerCapabilities: Codable, Hashable, Sendable {
    /// `workspace.workspaceFolders`: whether the server takes several folders (and their changes).
    public struct WorkspaceFolders: Codable, Hashable, Sendable {
        public var supported: Bool?

        public init(supported: Bool? = nil) {
            self.supported = supported
        }
    }

    public var workspaceFolders: WorkspaceFolders?

    public init(workspaceFolders: WorkspaceFolders? = nil) {
        self.workspaceFolders = workspaceFolders
    }
}
