/// LSP `ExecuteCommandParams`.
public struct ExecuteCommandParams: Codable, Hashable, Sendable {
    /// `snippets.ask` or `snippets.saveSelection`.
    public var command: String
    /// One argument object.
    public var arguments: [JSONValue]?
}
