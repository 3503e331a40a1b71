/// `ServerCapabilities.codeActionProvider`.
public struct CodeActionOptions: Codable, Hashable, Sendable {
    /// The kinds of code action the server may return.
    public var codeActionKinds: [String]?
    /// The server answers `codeAction/resolve`.
    public var resolveProvider: Bool?

    public init(codeActionKinds: [String]? = nil, resolveProvider: Bool? = nil) {
        self.codeActionKinds = codeActionKinds
        self.resolveProvider = resolveProvider
    }
}
