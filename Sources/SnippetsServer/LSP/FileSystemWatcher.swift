/// One pattern the client watches (`workspace/didChangeWatchedFiles`).
public struct FileSystemWatcher: Codable, Hashable, Sendable {
    /// A glob over absolute paths (`/home/me/.config/snippets/**/*`).
    public var globPattern: String

    public init(globPattern: String) {
        self.globPattern = globPattern
    }
}
