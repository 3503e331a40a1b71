/// `client/registerCapability` params.
public struct RegistrationParams: Codable, Hashable, Sendable {
    /// The request's method.
    public static let method = "client/registerCapability"

    public var registrations: [Registration]

    public init(registrations: [Registration]) {
        self.registrations = registrations
    }
}
