/// `ServerCapabilities.completionProvider`: completion as advertised in the `initialize` reply.
public struct CompletionOptions: Codable, Hashable, Sendable {
    /// The server answers `completionItem/resolve`.
    public var resolveProvider: Bool?
    /// Characters that ask for completion when typed (see `TriggerCharacters`).
    public var triggerCharacters: [String]?

    public init(resolveProvider: Bool? = nil, triggerCharacters: [String]? = nil) {
        self.resolveProvider = resolveProvider
        self.triggerCharacters = triggerCharacters
    }
}
