/// `client/unregisterCapability` params.
public struct UnregistrationParams: Codable, Hashable, Sendable {
    /// The request's method.
    public static let method = "client/unregisterCapability"

    /// `unregisterations`: the protocol's own spelling.
    public var unregisterations: [Unregistration]

    public init(unregisterations: [Unregistration]) {
        self.unregisterations = unregisterations
    }
}
