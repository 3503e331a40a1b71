/// Params that are ignored (for methods that take none).
public struct IgnoredParams: Decodable, Sendable {
    public init(from decoder: any Decoder) throws {}
}
