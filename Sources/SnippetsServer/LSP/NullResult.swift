/// A result that is JSON `null` (for `shutdown`).
public struct NullResult: Encodable, Sendable {
    /// The null result.
    public init() {}
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}
