/// The registration options of `textDocument/completion`.
public struct CompletionRegistrationOptions: Codable, Hashable, Sendable {
    /// Which documents; nil (sent as `null`, as the protocol requires the member) means the client's own selector.
    public var documentSelector: JSONValue?
    public var resolveProvider: Bool?
    public var triggerCharacters: [String]?

    public init(documentSelector: JSONValue? = nil, resolveProvider: Bool? = nil, triggerCharacters: [String]? = nil) {
        self.documentSelector = documentSelector
        self.resolveProvider = resolveProvider
        self.triggerCharacters = triggerCharacters
    }

    private enum CodingKeys: String, CodingKey {
        case documentSelector, resolveProvider, triggerCharacters
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // `documentSelector` is `DocumentSelector | null`: never left out.
        try container.encode(documentSelector ?? .null, forKey: .documentSelector)
        try container.encodeIfPresent(resolveProvider, forKey: .resolveProvider)
        try container.encodeIfPresent(triggerCharacters, forKey: .triggerCharacters)
    }
}
