import Foundation

/// Encodes an `Encodable` straight into a `JSONValue` (no bytes in between), with `JSONEncoder`'s default
/// strategies: `nil` optionals are left out by synthesized conformances, `Date` is seconds since 2001, `Data` is
/// Base64, `URL` is its absolute string.
struct JSONValueEncoder {
    /// The value of `value` as JSON.
    static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        try box(value, codingPath: [])
    }

    /// Encodes one value, handling the types `JSONEncoder` treats specially.
    fileprivate static func box<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> JSONValue {
        switch value {
        case let json as JSONValue: return json
        case let representable as any JSONValueRepresentable: return representable.jsonValue()
        case let text as String: return .string(text)
        case let flag as Bool: return .bool(flag)
        case let integer as Int: return .int(integer)
        case let double as Double: return try finite(double, codingPath)
        case let date as Date: return try finite(date.timeIntervalSinceReferenceDate, codingPath)
        case let data as Data: return .string(data.base64EncodedString())
        case let url as URL: return .string(url.absoluteString)
        default:
            let encoder = Node(codingPath: codingPath)
            try value.encode(to: encoder)
            return encoder.value ?? .object([:])
        }
    }
}

/// A type that builds its JSON directly, bypassing `Encodable` (for the hot replies); the result must equal what
/// its `Encodable` conformance gives.
protocol JSONValueRepresentable {
    /// The value as JSON.
    func jsonValue() -> JSONValue
}

/// Where an encoded value is being built: a reference, so nested containers can fill it in place.
private final class Node: Encoder {
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// The value once something was encoded.
    var storage: Storage = .empty

    enum Storage {
        case empty
        case single(JSONValue)
        case object([String: Node], [String: JSONValue])
        case array([Element])
    }

    /// An array element: a finished value or a nested container still being filled.
    enum Element {
        case value(JSONValue)
        case node(Node)
    }

    init(codingPath: [any CodingKey]) { self.codingPath = codingPath }

    var value: JSONValue? {
        switch storage {
        case .empty: return nil
        case .single(let value): return value
        case .object(let nodes, var values):
            for (key, node) in nodes { values[key] = node.value ?? .object([:]) }
            return .object(values)
        case .array(let elements):
            return .array(elements.map { element in
                switch element {
                case .value(let value): value
                case .node(let node): node.value ?? .object([:])
                }
            })
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = storage {} else { storage = .object([:], [:]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = storage {} else { storage = .array([]) }
        return UnkeyedContainer(node: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(node: self) }

    func set(_ value: JSONValue, forKey key: String) {
        guard case .object(var nodes, var values) = storage else { return }
        storage = .empty  // keeps the dictionaries uniquely referenced while they change
        nodes[key] = nil
        values[key] = value
        storage = .object(nodes, values)
    }

    func setNode(_ node: Node, forKey key: String) {
        guard case .object(var nodes, var values) = storage else { return }
        storage = .empty
        values[key] = nil
        nodes[key] = node
        storage = .object(nodes, values)
    }

    func append(_ element: Element) {
        guard case .array(var elements) = storage else { return }
        storage = .empty
        elements.append(element)
        storage = .array(elements)
    }

    var count: Int {
        if case .array(let elements) = storage { return elements.count }
        return 0
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    var codingPath: [any CodingKey] { node.codingPath }

    mutating func encodeNil(forKey key: Key) throws { node.set(.null, forKey: key.stringValue) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { node.set(.bool(value), forKey: key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) throws { node.set(.string(value), forKey: key.stringValue) }
    mutating func encode(_ value: Int, forKey key: Key) throws { node.set(.int(value), forKey: key.stringValue) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        node.set(try finite(value, codingPath + [key]), forKey: key.stringValue)
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        node.set(try number(value) ?? JSONValueEncoder.box(value, codingPath: codingPath + [key]), forKey: key.stringValue)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = Node(codingPath: codingPath + [key])
        node.setNode(child, forKey: key.stringValue)
        return child.container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = Node(codingPath: codingPath + [key])
        node.setNode(child, forKey: key.stringValue)
        return child.unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: "super") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue) }

    private func superEncoder(named name: String) -> any Encoder {
        let child = Node(codingPath: codingPath)
        node.setNode(child, forKey: name)
        return child
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey] { node.codingPath }
    var count: Int { node.count }

    mutating func encodeNil() throws { node.append(.value(.null)) }
    mutating func encode(_ value: Bool) throws { node.append(.value(.bool(value))) }
    mutating func encode(_ value: String) throws { node.append(.value(.string(value))) }
    mutating func encode(_ value: Int) throws { node.append(.value(.int(value))) }
    mutating func encode(_ value: Double) throws { node.append(.value(try finite(value, codingPath))) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        node.append(.value(try number(value) ?? JSONValueEncoder.box(value, codingPath: codingPath + [IndexKey(count)])))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = Node(codingPath: codingPath + [IndexKey(count)])
        node.append(.node(child))
        return child.container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = Node(codingPath: codingPath + [IndexKey(count)])
        node.append(.node(child))
        return child.unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let child = Node(codingPath: codingPath + [IndexKey(count)])
        node.append(.node(child))
        return child
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey] { node.codingPath }

    mutating func encodeNil() throws { node.storage = .single(.null) }
    mutating func encode(_ value: Bool) throws { node.storage = .single(.bool(value)) }
    mutating func encode(_ value: String) throws { node.storage = .single(.string(value)) }
    mutating func encode(_ value: Int) throws { node.storage = .single(.int(value)) }
    mutating func encode(_ value: Double) throws { node.storage = .single(try finite(value, codingPath)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        node.storage = .single(try number(value) ?? JSONValueEncoder.box(value, codingPath: codingPath))
    }
}

/// The other number types, as `JSONEncoder` writes them (an integer too large for `Int` becomes a double).
private func number<T>(_ value: T) throws -> JSONValue? {
    switch value {
    case let value as Int8: .int(Int(value))
    case let value as Int16: .int(Int(value))
    case let value as Int32: .int(Int(value))
    case let value as Int64: .int(Int(value))
    case let value as UInt: Int(exactly: value).map(JSONValue.int) ?? .double(Double(value))
    case let value as UInt8: .int(Int(value))
    case let value as UInt16: .int(Int(value))
    case let value as UInt32: .int(Int(value))
    case let value as UInt64: Int(exactly: value).map(JSONValue.int) ?? .double(Double(value))
    case let value as Float: try finite(Double(value.description) ?? Double(value), [])
    default: nil
    }
}

/// A double as JSON (integral values as `.int`); like `JSONEncoder`, NaN and infinity are refused.
private func finite(_ value: Double, _ codingPath: [any CodingKey]) throws -> JSONValue {
    guard value.isFinite else {
        throw EncodingError.invalidValue(
            value, EncodingError.Context(codingPath: codingPath, debugDescription: "\(value) is not valid JSON"))
    }
    // What the old encode-then-parse round trip gave: an integral double reads back as an integer.
    if let integer = Int(exactly: value) { return .int(integer) }
    return .double(value)
}

/// An array position as a coding key (shared by `JSONValueEncoder` and `JSONValueDecoder`).
struct IndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.init(intValue) }
}
