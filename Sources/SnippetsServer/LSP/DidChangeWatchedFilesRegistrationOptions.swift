/// The registration options of `workspace/didChangeWatchedFiles`: what the client watches for the server.
public struct DidChangeWatchedFilesRegistrationOptions: Codable, Hashable, Sendable {
    public var watchers: [FileSystemWatcher]

    public init(watchers: [FileSystemWatcher]) {
        self.watchers = watchers
    }
}
