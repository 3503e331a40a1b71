/// A JSON value read by `JSONC.parse`, with the UTF-8 byte range it occupies in its source, so that every key and
/// value of a snippet file can be pointed at.
public struct JSONCValue: Sendable {
    /// What the value is; objects keep their members in source order (duplicates included).
    public enum Kind: Sendable {
        case object([JSONCMember])
        case array([JSONCValue])
        case string(String)
        case number(Double)
        case bool(Bool)
        case null
    }

    /// What the value is.
    public var kind: Kind
    /// UTF-8 offsets of the value in the source: from its first byte (`{`, `[`, `"`, digit, ...) to one past its last.
    public var range: Range<Int>

    /// The value's JSON type as a user would name it ("a string", "an object", ...), for messages.
    public var typeDescription: String {
        switch kind {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let string) = kind { return string }
        return nil
    }

    /// The members, if this is an object.
    public var members: [JSONCMember]? {
        if case .object(let members) = kind { return members }
        return nil
    }

    /// The last member named `key`, if this is an object (JSON lets a later duplicate win).
    public func member(_ key: String) -> JSONCMember? {
        members?.last { $0.key == key }
    }
}

/// One `"key": value` pair of a JSON object.
public struct JSONCMember: Sendable {
    /// The key, unescaped.
    public var key: String
    /// UTF-8 offsets of the key, quotes included.
    public var keyRange: Range<Int>
    /// The value the key names.
    public var value: JSONCValue

    /// From the key's opening quote to the end of the value.
    public var range: Range<Int> { keyRange.lowerBound..<value.range.upperBound }
}

/// Why a JSONC text could not be read, and where.
public struct JSONCSyntaxError: Error, Hashable, Sendable {
    /// UTF-8 offset of the offending byte.
    public var offset: Int
    /// What is wrong, in plain words.
    public var message: String
}

/// A reader for JSON with comments (`//`, `/* */`) and trailing commas, as VS Code reads snippet files and
/// `package.json`. It keeps the source range of every key and value. `read` recovers from syntax errors as VS Code's
/// reader does (see `JSONCReading.swift`); `parse` is the strict reading, for files that are written back.
public enum JSONC {
    /// Parses UTF-8 `bytes` (already checked to be valid UTF-8) into one value, or fails at the first syntax error.
    public static func parse(_ bytes: [UInt8]) -> Result<JSONCValue, JSONCSyntaxError> {
        let reading = read(bytes)
        if let error = reading.errors.first { return .failure(error) }
        guard let value = reading.value else {
            return .failure(JSONCSyntaxError(offset: 0, message: "unexpected end of file: expected a value"))
        }
        return .success(value)
    }

    /// Anchors that map UTF-16 offsets in the decoded value of the string literal at `range` back to UTF-8 offsets
    /// in `bytes`, starting at decoded offset `base`. Escapes become opaque anchors; plain runs map one to one.
    static func sourceAnchors(ofStringAt range: Range<Int>, in bytes: [UInt8], base: Int) -> [BodySourceMap.Anchor] {
        var anchors: [BodySourceMap.Anchor] = []
        var output = base
        var index = range.lowerBound + 1
        let end = max(index, range.upperBound - 1)
        var runStart: Int? = nil
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") {
                runStart = nil
                anchors.append(.init(outputUTF16: output, sourceUTF8: index, isVerbatim: false))
                let escaped = index + 1 < end ? bytes[index + 1] : 0
                if escaped == UInt8(ascii: "u") {
                    // A \uXXXX escape is one UTF-16 unit of output (surrogate halves each count once).
                    output += 1
                    index += 6
                } else {
                    output += 1
                    index += 2
                }
                continue
            }
            if runStart == nil {
                runStart = index
                anchors.append(.init(outputUTF16: output, sourceUTF8: index, isVerbatim: true))
            }
            let width = utf8Width(byte)
            output += width == 4 ? 2 : 1
            index += width
        }
        anchors.append(.init(outputUTF16: output, sourceUTF8: end, isVerbatim: false))
        return anchors
    }

    static func utf8Width(_ leading: UInt8) -> Int {
        if leading < 0x80 { return 1 }
        if leading >= 0xF0 { return 4 }
        if leading >= 0xE0 { return 3 }
        return 2
    }

    /// Nesting deeper than this is refused rather than risking the stack on hostile input.
    static let maximumDepth = 512
}

extension JSONC {
    /// The offset of the first `,` between `start` and `end` of JSONC text, skipping `//` and `/* */` comments (for
    /// textual edits that add or remove a member and must find the separator without reparsing).
    public static func commaOffset(in bytes: [UInt8], from start: Int, to end: Int) -> Int? {
        var index = start
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: ",") { return index }
            if byte == UInt8(ascii: "/"), index + 1 < end {
                if bytes[index + 1] == UInt8(ascii: "/") {
                    while index < end, bytes[index] != 0x0A { index += 1 }
                    continue
                }
                if bytes[index + 1] == UInt8(ascii: "*") {
                    index += 2
                    while index + 1 < end, !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) { index += 1 }
                    index += 2
                    continue
                }
            }
            index += 1
        }
        return nil
    }
}
