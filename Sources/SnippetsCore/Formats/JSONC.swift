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
/// `package.json`. It keeps the source range of every key and value; it stops at the first syntax error.
public enum JSONC {
    /// Parses UTF-8 `bytes` (already checked to be valid UTF-8) into one value.
    public static func parse(_ bytes: [UInt8]) -> Result<JSONCValue, JSONCSyntaxError> {
        var parser = Parser(bytes: bytes)
        do {
            parser.skipTrivia()
            let value = try parser.parseValue(depth: 0)
            parser.skipTrivia()
            if parser.position < bytes.count {
                throw JSONCSyntaxError(offset: parser.position, message: "unexpected text after the JSON value")
            }
            return .success(value)
        } catch let error as JSONCSyntaxError {
            return .failure(error)
        } catch {
            return .failure(JSONCSyntaxError(offset: parser.position, message: "unreadable JSON"))
        }
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

    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func skipTrivia() {
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                    position += 1
                case UInt8(ascii: "/") where position + 1 < bytes.count && bytes[position + 1] == UInt8(ascii: "/"):
                    position += 2
                    while position < bytes.count, bytes[position] != UInt8(ascii: "\n"), bytes[position] != UInt8(ascii: "\r") {
                        position += 1
                    }
                case UInt8(ascii: "/") where position + 1 < bytes.count && bytes[position + 1] == UInt8(ascii: "*"):
                    var index = position + 2
                    while index + 1 < bytes.count, !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) {
                        index += 1
                    }
                    // An unterminated block comment is left for the value parser to report.
                    guard index + 1 < bytes.count else { return }
                    position = index + 2
                case 0xEF where position == 0 && bytes.count >= 3 && bytes[1] == 0xBB && bytes[2] == 0xBF:
                    position = 3  // byte order mark
                default:
                    return
                }
            }
        }

        func error(_ message: String, at offset: Int? = nil) -> JSONCSyntaxError {
            JSONCSyntaxError(offset: offset ?? position, message: message)
        }

        mutating func parseValue(depth: Int) throws -> JSONCValue {
            guard depth < JSONC.maximumDepth else { throw error("nesting is too deep") }
            guard position < bytes.count else { throw error("unexpected end of file: expected a value") }
            let start = position
            switch bytes[position] {
            case UInt8(ascii: "{"): return try parseObject(depth: depth)
            case UInt8(ascii: "["): return try parseArray(depth: depth)
            case UInt8(ascii: "\""):
                let string = try parseString()
                return JSONCValue(kind: .string(string), range: start..<position)
            case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
            case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
            case UInt8(ascii: "n"): return try parseLiteral("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            case UInt8(ascii: "/") where position + 1 < bytes.count && bytes[position + 1] == UInt8(ascii: "*"):
                throw error("unterminated /* comment")
            default:
                throw error("unexpected character \(describe(bytes[position])): expected a value")
            }
        }

        func describe(_ byte: UInt8) -> String {
            byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: byte)
        }

        mutating func parseLiteral(_ word: String, _ kind: JSONCValue.Kind) throws -> JSONCValue {
            let start = position
            for expected in word.utf8 {
                guard position < bytes.count, bytes[position] == expected else {
                    throw error("unexpected character: expected '\(word)'", at: start)
                }
                position += 1
            }
            return JSONCValue(kind: kind, range: start..<position)
        }

        mutating func parseNumber() throws -> JSONCValue {
            let start = position
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            var sawDigit = false
            while position < bytes.count {
                let byte = bytes[position]
                let isNumberByte = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
                    || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                guard isNumberByte else { break }
                if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { sawDigit = true }
                position += 1
            }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            guard sawDigit, let number = Double(text) else { throw error("malformed number '\(text)'", at: start) }
            return JSONCValue(kind: .number(number), range: start..<position)
        }

        mutating func parseString() throws -> String {
            let start = position
            position += 1
            var contentStart = position
            var decoded: [UInt8] = []
            var hasEscapes = false
            while true {
                guard position < bytes.count else { throw error("unterminated string", at: start) }
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    let string: String
                    if hasEscapes {
                        decoded.append(contentsOf: bytes[contentStart..<position])
                        string = String(decoding: decoded, as: UTF8.self)
                    } else {
                        string = String(decoding: bytes[contentStart..<position], as: UTF8.self)
                    }
                    position += 1
                    return string
                }
                if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                    throw error("unterminated string (a line break inside a string must be written \\n)", at: start)
                }
                if byte == UInt8(ascii: "\\") {
                    hasEscapes = true
                    decoded.append(contentsOf: bytes[contentStart..<position])
                    try decodeEscape(into: &decoded)
                    contentStart = position
                    continue
                }
                position += 1
            }
        }

        /// Decodes the escape at `position` (a backslash) and moves past it.
        mutating func decodeEscape(into decoded: inout [UInt8]) throws {
            let escapeStart = position
            guard position + 1 < bytes.count else { throw error("unterminated string") }
            let escaped = bytes[position + 1]
            position += 2
            switch escaped {
            case UInt8(ascii: "\""): decoded.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): decoded.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "/"): decoded.append(UInt8(ascii: "/"))
            case UInt8(ascii: "b"): decoded.append(0x08)
            case UInt8(ascii: "f"): decoded.append(0x0C)
            case UInt8(ascii: "n"): decoded.append(UInt8(ascii: "\n"))
            case UInt8(ascii: "r"): decoded.append(UInt8(ascii: "\r"))
            case UInt8(ascii: "t"): decoded.append(UInt8(ascii: "\t"))
            case UInt8(ascii: "u"):
                var unit = try readHex(at: escapeStart)
                var scalar: Unicode.Scalar?
                if (0xD800...0xDBFF).contains(unit), position + 1 < bytes.count,
                    bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
                {
                    let saved = position
                    position += 2
                    let low = try readHex(at: saved)
                    if (0xDC00...0xDFFF).contains(low) {
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        position = saved
                    }
                }
                scalar = Unicode.Scalar(unit)
                // A lone surrogate cannot be represented in a Swift string: it becomes U+FFFD, as VS Code shows it.
                decoded.append(contentsOf: Array(String(scalar ?? "\u{FFFD}").utf8))
            default:
                throw error("invalid escape '\\\(Character(Unicode.Scalar(escaped)))' in string", at: escapeStart)
            }
        }

        mutating func readHex(at escapeStart: Int) throws -> UInt32 {
            guard position + 4 <= bytes.count else { throw error("incomplete \\u escape", at: escapeStart) }
            var value: UInt32 = 0
            for byte in bytes[position..<(position + 4)] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw error("invalid \\u escape", at: escapeStart)
                }
                value = value * 16 + UInt32(digit)
            }
            position += 4
            return value
        }

        mutating func parseObject(depth: Int) throws -> JSONCValue {
            let start = position
            position += 1
            var members: [JSONCMember] = []
            while true {
                skipTrivia()
                guard position < bytes.count else { throw error("unexpected end of file: '{' is never closed", at: start) }
                if bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    return JSONCValue(kind: .object(members), range: start..<position)
                }
                guard bytes[position] == UInt8(ascii: "\"") else {
                    throw error("unexpected character \(describe(bytes[position])): expected a quoted key or '}'")
                }
                let keyStart = position
                let key = try parseString()
                let keyRange = keyStart..<position
                skipTrivia()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                    throw error("expected ':' after the key \"\(key)\"")
                }
                position += 1
                skipTrivia()
                let value = try parseValue(depth: depth + 1)
                members.append(JSONCMember(key: key, keyRange: keyRange, value: value))
                skipTrivia()
                guard position < bytes.count else { throw error("unexpected end of file: '{' is never closed", at: start) }
                switch bytes[position] {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"): continue
                default: throw error("unexpected character \(describe(bytes[position])): expected ',' or '}'")
                }
            }
        }

        mutating func parseArray(depth: Int) throws -> JSONCValue {
            let start = position
            position += 1
            var elements: [JSONCValue] = []
            while true {
                skipTrivia()
                guard position < bytes.count else { throw error("unexpected end of file: '[' is never closed", at: start) }
                if bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    return JSONCValue(kind: .array(elements), range: start..<position)
                }
                elements.append(try parseValue(depth: depth + 1))
                skipTrivia()
                guard position < bytes.count else { throw error("unexpected end of file: '[' is never closed", at: start) }
                switch bytes[position] {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "]"): continue
                default: throw error("unexpected character \(describe(bytes[position])): expected ',' or ']'")
                }
            }
        }
    }
}

extension String {
    fileprivate init(format byte: UInt8) {
        let hex = String(byte, radix: 16, uppercase: true)
        self = "byte 0x" + (hex.count < 2 ? "0" + hex : hex)
    }
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
