import Foundation

/// Decodes a `Decodable` straight from a `JSONValue` (no bytes in between), for the params of every message.
///
/// It only has to be right when it succeeds: `JSONValue.decode` falls back to `JSONDecoder` on any error, so
/// error messages (which reach clients as -32602) stay Foundation's. Types `JSONDecoder` reads specially (`Date`,
/// `Data`, `URL`, `Decimal`) are refused here and so take the fallback.
struct JSONValueDecoder {
    /// Why this decoder gave up; never shown to anyone.
    struct Unsupported: Error {}

    /// `T` read from `value`.
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try unbox(value, as: type, codingPath: [])
    }

    fileprivate static func unbox<T: Decodable>(_ value: JSONValue, as type: T.Type, codingPath: [any CodingKey]) throws -> T {
        if type == JSONValue.self { return value as! T }
        if type == String.self {
            guard case .string(let text) = value else { throw Unsupported() }
            return text as! T
        }
        if type == Int.self {
            guard case .int(let integer) = value else { throw Unsupported() }
            return integer as! T
        }
        if type == Bool.self {
            guard case .bool(let flag) = value else { throw Unsupported() }
            return flag as! T
        }
        if type == Date.self || type == Data.self || type == URL.self || type == Decimal.self { throw Unsupported() }
        return try T(from: ValueDecoder(value: value, codingPath: codingPath))
    }
}

private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw JSONValueDecoder.Unsupported() }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw JSONValueDecoder.Unsupported() }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleContainer(value: value, codingPath: codingPath)
    }
}

/// Numbers as `JSONDecoder` reads them from what `JSONText` parsed; anything else is refused (and so falls back).
private func number<T>(_ value: JSONValue, as type: T.Type) throws -> T {
    switch value {
    case .int(let integer):
        if type == Int.self { return integer as! T }
        if type == Double.self { return Double(integer) as! T }
        if type == Float.self, let float = Float(exactly: integer) { return float as! T }
        if type == Int64.self { return Int64(integer) as! T }
        if type == Int32.self, let narrow = Int32(exactly: integer) { return narrow as! T }
        if type == Int16.self, let narrow = Int16(exactly: integer) { return narrow as! T }
        if type == Int8.self, let narrow = Int8(exactly: integer) { return narrow as! T }
        if type == UInt.self, let narrow = UInt(exactly: integer) { return narrow as! T }
        if type == UInt64.self, let narrow = UInt64(exactly: integer) { return narrow as! T }
        if type == UInt32.self, let narrow = UInt32(exactly: integer) { return narrow as! T }
        if type == UInt16.self, let narrow = UInt16(exactly: integer) { return narrow as! T }
        if type == UInt8.self, let narrow = UInt8(exactly: integer) { return narrow as! T }
    case .double(let double):
        if type == Double.self { return double as! T }
    default:
        break
    }
    throw JSONValueDecoder.Unsupported()
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else { throw JSONValueDecoder.Unsupported() }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        guard case .bool(let flag) = try member(key) else { throw JSONValueDecoder.Unsupported() }
        return flag
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        guard case .string(let text) = try member(key) else { throw JSONValueDecoder.Unsupported() }
        return text
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try number(member(key), as: Int.self) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try number(member(key), as: Double.self) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try number(member(key), as: Float.self) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try number(member(key), as: Int8.self) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try number(member(key), as: Int16.self) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try number(member(key), as: Int32.self) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try number(member(key), as: Int64.self) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try number(member(key), as: UInt.self) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try number(member(key), as: UInt8.self) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try number(member(key), as: UInt16.self) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try number(member(key), as: UInt32.self) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try number(member(key), as: UInt64.self) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try JSONValueDecoder.unbox(member(key), as: type, codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { throw JSONValueDecoder.Unsupported() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw JSONValueDecoder.Unsupported() }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> JSONValue {
        guard currentIndex < elements.count else { throw JSONValueDecoder.Unsupported() }
        defer { currentIndex += 1 }
        return elements[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard currentIndex < elements.count else { throw JSONValueDecoder.Unsupported() }
        if elements[currentIndex] == .null {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let index = currentIndex
        return try JSONValueDecoder.unbox(next(), as: type, codingPath: codingPath + [IndexKey(index)])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let index = currentIndex
        return try ValueDecoder(value: next(), codingPath: codingPath + [IndexKey(index)]).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let index = currentIndex
        return try ValueDecoder(value: next(), codingPath: codingPath + [IndexKey(index)]).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { throw JSONValueDecoder.Unsupported() }
}

private struct SingleContainer: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = value else { throw JSONValueDecoder.Unsupported() }
        return flag
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let text) = value else { throw JSONValueDecoder.Unsupported() }
        return text
    }

    func decode(_ type: Int.Type) throws -> Int { try number(value, as: Int.self) }
    func decode(_ type: Double.Type) throws -> Double { try number(value, as: Double.self) }
    func decode(_ type: Float.Type) throws -> Float { try number(value, as: Float.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try number(value, as: Int8.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try number(value, as: Int16.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try number(value, as: Int32.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try number(value, as: Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try number(value, as: UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try number(value, as: UInt8.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try number(value, as: UInt16.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try number(value, as: UInt32.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try number(value, as: UInt64.self) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONValueDecoder.unbox(value, as: type, codingPath: codingPath)
    }
}
