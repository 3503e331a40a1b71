/// A direct JSON reader and writer for `JSONValue`: one pass over the bytes, no `Codable` round trips.
///
/// Foundation's `JSONDecoder` can only read a `JSONValue` by trying each type in turn (and throwing on every miss),
/// which made reading and writing messages most of the server's time per completion. These follow what
/// Foundation accepts and writes (checked against it in `JSONTextTests`): integral numbers read as `.int` when they
/// fit, duplicate keys keep the first value, a trailing comma is tolerated, keys are written sorted by UTF-8 bytes,
/// slashes are not escaped, and integral doubles are written without `.0`.
enum JSONText {
    /// Why bytes are not JSON.
    struct SyntaxError: Error, CustomStringConvertible {
        /// What was wrong.
        var reason: String
        /// The byte offset where it was noticed.
        var offset: Int

        var description: String { "\(reason) at byte \(offset)" }
    }

    /// How deep arrays and objects may nest (as in Foundation), so hostile input cannot exhaust the stack.
    static let maximumDepth = 512

    /// Parses one JSON value that fills `bytes` (surrounding whitespace allowed).
    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer)
            let value = try reader.value(depth: 0)
            reader.skipWhitespace()
            guard reader.offset == buffer.count else { throw reader.error("unexpected bytes after the value") }
            return value
        }
    }

    /// Compact UTF-8 JSON with keys sorted; nil when the value holds a non-finite number (Foundation refuses those).
    static func serialize(_ value: JSONValue) -> [UInt8]? {
        var writer = Writer()
        guard writer.write(value) else { return nil }
        return writer.bytes
    }

    /// The integer a JSON number's text denotes exactly (`5.0`, `1e2`, `9007199254740993.0`), or nil when it
    /// denotes a fraction or a value outside `Int`. Decimal arithmetic on the digits, no rounding through `Double`,
    /// in one pass over the text: `0.000…01` with a million zeros costs a million steps, not a million squared.
    static func exactInteger(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        let zero = UInt8(ascii: "0")
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { index = 1 }
        // The digits before and after the point are one sequence; where its first and last non-zero digits are.
        var digitCount = 0
        var fractionCount = 0
        var inFraction = false
        var firstSignificant = -1  // in digits
        var lastSignificant = -1
        var firstSignificantByte = 0  // in bytes
        var lastSignificantByte = 0
        while index < bytes.count, bytes[index] != UInt8(ascii: "e"), bytes[index] != UInt8(ascii: "E") {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                inFraction = true
            } else {
                if byte != zero {
                    if firstSignificant < 0 {
                        firstSignificant = digitCount
                        firstSignificantByte = index
                    }
                    lastSignificant = digitCount
                    lastSignificantByte = index
                }
                digitCount += 1
                if inFraction { fractionCount += 1 }
            }
            index += 1
        }
        guard firstSignificant >= 0 else { return 0 }
        var exponent = 0
        if index < bytes.count {
            index += 1
            let exponentIsNegative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
            // Saturated: past a billion, only "a fraction" or "too large" can follow, as for the exact value.
            while index < bytes.count {
                exponent = min(exponent * 10 + Int(bytes[index] &- zero), 1_000_000_000)
                index += 1
            }
            if exponentIsNegative { exponent = -exponent }
        }
        // The value is the significant digits times 10^shift.
        let shift = exponent - fractionCount + (digitCount - 1 - lastSignificant)
        guard shift >= 0 else { return nil }  // a fraction
        guard lastSignificant - firstSignificant + 1 + shift <= 19 else { return nil }
        var digits: [UInt8] = negative ? [UInt8(ascii: "-")] : []
        for byte in bytes[firstSignificantByte...lastSignificantByte] where byte != UInt8(ascii: ".") { digits.append(byte) }
        digits += repeatElement(zero, count: shift)
        return Int(String(decoding: digits, as: UTF8.self))
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        func error(_ reason: String) -> SyntaxError { SyntaxError(reason: reason, offset: offset) }

        mutating func skipWhitespace() {
            while offset < bytes.count {
                switch bytes[offset] {
                case 0x20, 0x09, 0x0A, 0x0D: offset += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws -> JSONValue {
            skipWhitespace()
            guard offset < bytes.count else { throw error("unexpected end of input") }
            switch bytes[offset] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw error("unexpected character")
            }
        }

        mutating func literal(_ word: StaticString) throws {
            let count = word.utf8CodeUnitCount
            guard offset + count <= bytes.count else { throw error("unexpected end of input") }
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
            for index in 0..<count where bytes[offset + index] != expected[index] {
                throw error("unexpected character")
            }
            offset += count
        }

        mutating func array(depth: Int) throws -> JSONValue {
            guard depth <= JSONText.maximumDepth else { throw error("too many nested arrays or objects") }
            offset += 1  // [
            var elements: [JSONValue] = []
            skipWhitespace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return .array(elements)
            }
            while true {
                elements.append(try value(depth: depth))
                skipWhitespace()
                guard offset < bytes.count else { throw error("unexpected end of input") }
                switch bytes[offset] {
                case UInt8(ascii: "]"):
                    offset += 1
                    return .array(elements)
                case UInt8(ascii: ","):
                    offset += 1
                    skipWhitespace()
                    if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {  // trailing comma, as Foundation
                        offset += 1
                        return .array(elements)
                    }
                default:
                    throw error("expected ',' or ']'")
                }
            }
        }

        mutating func object(depth: Int) throws -> JSONValue {
            guard depth <= JSONText.maximumDepth else { throw error("too many nested arrays or objects") }
            offset += 1  // {
            var members: [String: JSONValue] = [:]
            skipWhitespace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw error("expected a key") }
                let key = try string()
                skipWhitespace()
                guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw error("expected ':'") }
                offset += 1
                let member = try value(depth: depth)
                if members[key] == nil { members[key] = member }  // the first of duplicate keys, as Foundation
                skipWhitespace()
                guard offset < bytes.count else { throw error("unexpected end of input") }
                switch bytes[offset] {
                case UInt8(ascii: "}"):
                    offset += 1
                    return .object(members)
                case UInt8(ascii: ","):
                    offset += 1
                    skipWhitespace()
                    if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {  // trailing comma, as Foundation
                        offset += 1
                        return .object(members)
                    }
                default:
                    throw error("expected ',' or '}'")
                }
            }
        }

        /// A string starting at the opening quote; escapes decoded, UTF-8 validated.
        mutating func string() throws -> String {
            offset += 1  // "
            let start = offset
            // Fast path: no escapes.
            while offset < bytes.count {
                let byte = bytes[offset]
                if byte == UInt8(ascii: "\"") {
                    let text = try decodeUTF8(start..<offset)
                    offset += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") { break }
                if byte < 0x20 { throw error("unescaped control character in a string") }
                offset += 1
            }
            var scratch = Array(bytes[start..<offset])
            while offset < bytes.count {
                let byte = bytes[offset]
                switch byte {
                case UInt8(ascii: "\""):
                    offset += 1
                    guard let text = String(validating: scratch, as: UTF8.self) else {
                        throw error("a string is not valid UTF-8")
                    }
                    return text
                case UInt8(ascii: "\\"):
                    offset += 1
                    guard offset < bytes.count else { throw error("unexpected end of input") }
                    let escaped = bytes[offset]
                    offset += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escaped)
                    case UInt8(ascii: "b"): scratch.append(0x08)
                    case UInt8(ascii: "f"): scratch.append(0x0C)
                    case UInt8(ascii: "n"): scratch.append(0x0A)
                    case UInt8(ascii: "r"): scratch.append(0x0D)
                    case UInt8(ascii: "t"): scratch.append(0x09)
                    case UInt8(ascii: "u"):
                        let scalar = try unicodeEscape()
                        scratch.append(contentsOf: String(Character(scalar)).utf8)
                    default:
                        throw error("invalid escape in a string")
                    }
                default:
                    if byte < 0x20 { throw error("unescaped control character in a string") }
                    scratch.append(byte)
                    offset += 1
                }
            }
            throw error("unterminated string")
        }

        func decodeUTF8(_ range: Range<Int>) throws -> String {
            let slice = UnsafeBufferPointer(rebasing: bytes[range])
            guard let text = String(validating: slice, as: UTF8.self) else {
                throw error("a string is not valid UTF-8")
            }
            return text
        }

        /// The scalar of a `\uXXXX` escape (the `\u` already read), joining a surrogate pair. A lone surrogate is
        /// valid JSON text but no Unicode scalar: it becomes U+FFFD, which counts the same in every position
        /// encoding (one UTF-16 unit, three UTF-8 bytes, one scalar), so a document carrying one stays in step with
        /// the editor's copy (as `JSONC` reads library files).
        mutating func unicodeEscape() throws -> Unicode.Scalar {
            let first = try hex4()
            if (0xD800..<0xDC00).contains(first), offset + 6 <= bytes.count,
                bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
            {
                let saved = offset
                offset += 2
                let second = try hex4()
                if (0xDC00..<0xE000).contains(second), let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)) {
                    return scalar
                }
                // Not a low surrogate: that escape is read on its own.
                offset = saved
            }
            return Unicode.Scalar(first) ?? "\u{FFFD}"
        }

        mutating func hex4() throws -> UInt32 {
            guard offset + 4 <= bytes.count else { throw error("unexpected end of input") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[offset]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw error("invalid hex digit in a Unicode escape")
                }
                value = value << 4 | UInt32(digit)
                offset += 1
            }
            return value
        }

        /// A number by JSON's grammar: `.int` when integral and in range (as Foundation reads `1.0` or `1e2`),
        /// else `.double`.
        mutating func number() throws -> JSONValue {
            let start = offset
            if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw error("invalid number") }
            if bytes[offset] == UInt8(ascii: "0") {
                offset += 1
                if offset < bytes.count, isDigit(bytes[offset]) { throw error("a number with a leading zero") }
            } else {
                while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
            }
            var isInteger = true
            if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
                isInteger = false
                offset += 1
                guard offset < bytes.count, isDigit(bytes[offset]) else { throw error("invalid number") }
                while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
                isInteger = false
                offset += 1
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                    offset += 1
                }
                guard offset < bytes.count, isDigit(bytes[offset]) else { throw error("invalid number") }
                while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
            if isInteger, let integer = Int(text) { return .int(integer) }
            // `.int` only for the exact value of the text: `9007199254740993.0` is 9007199254740993, while
            // `-9223372036854775809` (out of range) stays a double rather than becoming `Int.min`, so a request id
            // is echoed exactly or refused, never changed.
            if !isInteger, let integer = JSONText.exactInteger(text) { return .int(integer) }
            guard let double = Double(text), double.isFinite else { throw error("a number out of range") }
            return .double(double)
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    }

    /// Appends JSON text to `bytes`; `JSONBytesWritable` types write through it.
    struct Writer {
        /// The text so far.
        var bytes: [UInt8] = []

        init() { bytes.reserveCapacity(1024) }

        /// Appends ASCII punctuation or a literal key exactly as given (the caller keeps it valid JSON).
        mutating func raw(_ text: StaticString) {
            bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        /// Appends an integer.
        mutating func write(_ integer: Int) { bytes.append(contentsOf: String(integer).utf8) }

        /// False when a number cannot be written (NaN or infinity).
        mutating func write(_ value: JSONValue) -> Bool {
            switch value {
            case .null: bytes.append(contentsOf: "null".utf8)
            case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
            case .int(let integer): bytes.append(contentsOf: String(integer).utf8)
            case .double(let double):
                guard double.isFinite else { return false }
                var text = double.description
                if text.hasSuffix(".0") { text.removeLast(2) }
                bytes.append(contentsOf: text.utf8)
            case .string(let text): write(text)
            case .array(let elements):
                bytes.append(UInt8(ascii: "["))
                for (index, element) in elements.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    guard write(element) else { return false }
                }
                bytes.append(UInt8(ascii: "]"))
            case .object(let members):
                bytes.append(UInt8(ascii: "{"))
                // Byte order of keys, as Foundation's `.sortedKeys`.
                var sorted = Array(members)
                if sorted.count > 16 {
                    sorted.sort { Self.precedes($0.key, $1.key) }
                } else {  // the usual small object: an insertion sort without closures
                    for start in sorted.indices.dropFirst() {
                        var index = start
                        while index > 0, Self.precedes(sorted[index].key, sorted[index - 1].key) {
                            sorted.swapAt(index, index - 1)
                            index -= 1
                        }
                    }
                }
                for (index, member) in sorted.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    write(member.key)
                    bytes.append(UInt8(ascii: ":"))
                    guard write(member.value) else { return false }
                }
                bytes.append(UInt8(ascii: "}"))
            }
            return true
        }

        /// UTF-8 byte order, over contiguous bytes when the strings have them.
        static func precedes(_ left: String, _ right: String) -> Bool {
            let result = left.utf8.withContiguousStorageIfAvailable { leftBytes in
                right.utf8.withContiguousStorageIfAvailable { rightBytes -> Bool in
                    for index in 0..<min(leftBytes.count, rightBytes.count) where leftBytes[index] != rightBytes[index] {
                        return leftBytes[index] < rightBytes[index]
                    }
                    return leftBytes.count < rightBytes.count
                }
            }
            return (result ?? nil) ?? left.utf8.lexicographicallyPrecedes(right.utf8)
        }

        mutating func write(_ text: String) {
            bytes.append(UInt8(ascii: "\""))
            var text = text
            text.withUTF8 { utf8 in
                // Copy runs that need no escape in one go; most strings have none or few.
                var runStart = 0
                for index in 0..<utf8.count {
                    let byte = utf8[index]
                    guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                    if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
                    runStart = index + 1
                    switch byte {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
                    case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
                    case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
                    case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
                    case 0x08: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "b"))
                    case 0x0C: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "f"))
                    default:
                        let hex = Array("0123456789abcdef".utf8)
                        bytes.append(contentsOf: "\\u00".utf8)
                        bytes.append(hex[Int(byte >> 4)])
                        bytes.append(hex[Int(byte & 0xF)])
                    }
                }
                if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }
}
