/// The `initialize` reply.
public struct InitializeResult: Codable, Hashable, Sendable {
    /// `serverInfo`.
    public struct ServerInfo: Codable, Hashable, Sendable {
        public var name: String
        public var version: String?

        public init(name: String, version: String? = nil) {
            self.name = name
            self.version = version
        }
    }

    public var capabilities: ServerCapabilities
    public var serverInfo: ServerInfo?

    public init(capabilities: ServerCapabilities, serverInfo: ServerInfo? = nil) {
        self.capabilities = capabilities
        self.serverInfo = serverInfo
    }
}
