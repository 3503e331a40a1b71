/// LSP `Command`.
public struct LSPCommand: Codable, Hashable, Sendable {
    /// What a menu shows.
    public var title: String
    /// The command's name, e.g. `snippets.ask`.
    public var command: String
    /// Its arguments (these commands take one object).
    public var arguments: [JSONValue]?
}
