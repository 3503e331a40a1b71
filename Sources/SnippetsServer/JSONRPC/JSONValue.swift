import Foundation

/// Any JSON value, as a `Sendable` value type, so untyped params and results can cross actors.
public enum JSONValue: Hashable, Sendable, Codable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object; nil for other values or a missing key.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string, if this is one.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The integer, if this is one (or a double with no fraction).
    public var intValue: Int? {
        switch self {
        case .int(let value): value
        case .double(let value) where value.rounded() == value && abs(value) < 1e15: Int(value)
        default: nil
        }
    }
    /// The boolean, if this is one.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// The members, if this is an object.
    public var objectValue: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }

    /// Parses UTF-8 JSON text.
    public static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try JSONText.parse(bytes)
    }

    /// The value of an `Encodable` as JSON.
    public init<T: Encodable>(encoding value: T) throws {
        self = try JSONValueEncoder.encode(value)
    }

    /// This value decoded as `T` (used to read typed params).
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        // Straight from the value; on any failure, JSONDecoder decides (and words the error).
        if let decoded = try? JSONValueDecoder.decode(type, from: self) { return decoded }
        guard let bytes = JSONText.serialize(self) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: "a number is not finite"))
        }
        return try JSONDecoder().decode(T.self, from: Data(bytes))
    }

    /// Compact UTF-8 JSON text with sorted keys (stable output for tests and logs).
    public func serialized() -> [UInt8] {
        // Only NaN or infinity cannot be written; JSONEncoder refused those too, and this answered `null`.
        JSONText.serialize(self) ?? Array("null".utf8)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}
