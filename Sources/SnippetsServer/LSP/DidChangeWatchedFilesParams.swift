/// `workspace/didChangeWatchedFiles` params.
public struct DidChangeWatchedFilesParams: Codable, Sendable {
    /// One changed file.
    public struct FileEvent: Codable, Sendable {
        public var uri: String
        public var type: FileChangeType
    }

    public var changes: [FileEvent]
}
