/// `$/cancelRequest` params.
public struct CancelParams: Decodable, Sendable {
    public var id: JSONValue
}
