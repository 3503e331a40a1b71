/// One registration taken back with `client/unregisterCapability`.
public struct Unregistration: Codable, Hashable, Sendable {
    /// The `Registration.id` it was registered with.
    public var id: String
    public var method: String

    public init(id: String, method: String) {
        self.id = id
        self.method = method
    }
}
