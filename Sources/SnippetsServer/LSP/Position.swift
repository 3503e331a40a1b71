import SnippetsCore

/// LSP `Position`: a zero-based line and a column counted in the negotiated `PositionEncoding`.
public struct Position: Codable, Hashable, Sendable {
    public var line: Int
    public var character: Int

    public init(line: Int, character: Int) {
        self.line = line
        self.character = character
    }

    /// The most a line or character may be: LSP's `uinteger` (2^31 - 1).
    public static let maximumComponent = Int(Int32.max)

    /// Decodes a client's position with both numbers clamped to `0...maximumComponent` (past the end already means
    /// the end of the line or text), so no arithmetic on a client's number can overflow.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func component(_ key: CodingKeys) throws -> Int {
            if let value = try? container.decode(Int.self, forKey: key) { return min(max(value, 0), Self.maximumComponent) }
            let number = try container.decode(Double.self, forKey: key)
            guard number.isFinite, number.rounded() == number else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not a whole number")
            }
            return number < 0 ? 0 : Int(min(number, Double(Self.maximumComponent)))
        }
        line = try component(.line)
        character = try component(.character)
    }

    private enum CodingKeys: String, CodingKey {
        case line, character
    }
}
