// The tolerant JSONC reader: VS Code reads a snippet file with jsonc-parser's `parse`, which recovers from syntax
// errors and keeps every entry it can, so one missing comma costs no snippet. This reader recovers the same way
// (and in two places better, marked below), keeping the source range of every key and value.
//
// Invariants:
// - A text without syntax errors reads exactly as strict JSONC: comments and trailing commas are allowed, nothing
//   else. `JSONC.parse` is this reading with its first error made a failure, so both agree on where a text breaks.
// - Every error is reported where it starts (a missing comma at the key that follows it, a stray word at the word),
//   and one mistake gives one error: after an error, none is reported until a member or element is read whole.
// - Recovery, as jsonc-parser does it:
//   - a missing `,` between members or elements is supplied, and so is a missing `:` before a value;
//   - text that starts no token (a stray word or character) is skipped, and so is a doubled `,` or a stray `:`;
//   - a key without a value, and a value where a key should be, are dropped;
//   - a string cut by a line break ends there, and the end of the text closes everything still open (said once,
//     at the innermost container it leaves open);
//   - text after the top-level value is reported and ignored.
//   Beyond jsonc-parser: a closer that belongs to an enclosing container (`}` where a `]` is missing) closes the
//   inner ones instead of being skipped (jsonc-parser would read the rest of the file into the array), and a `}`
//   that closes the top-level object early is skipped when more members follow it.
// - The cost is linear in the text's length: every step consumes at least one byte or leaves its container, and no
//   byte is read again after it is consumed. Nesting deeper than `JSONC.maximumDepth` ends the reading (an error),
//   so the stack is bounded too; at most `JSONC.maximumErrors` errors are listed, and the reading goes on past them.

/// What `JSONC.read` made of a text: the value a tolerant reading recovers, and each syntax error on the way.
public struct JSONCReading: Sendable {
    /// The value read; nil only when the text holds none at all (empty, or nothing that starts a value).
    public var value: JSONCValue?
    /// The syntax errors in source order: empty for a well-formed text.
    public var errors: [JSONCSyntaxError]
}

extension JSONC {
    /// Reads UTF-8 `bytes` (already checked to be valid UTF-8) as VS Code reads a snippet file: past syntax errors,
    /// keeping what can be read around each one.
    public static func read(_ bytes: [UInt8]) -> JSONCReading {
        var reader = RecoveringReader(bytes: bytes)
        return reader.readDocument()
    }

    /// How many syntax errors one reading lists (one more says that the rest are not listed).
    public static let maximumErrors = 100
}

/// The bytes the reader tells apart.
private enum Byte {
    static let openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")
    static let comma = UInt8(ascii: ","), colon = UInt8(ascii: ":"), quote = UInt8(ascii: "\"")
    static let slash = UInt8(ascii: "/"), star = UInt8(ascii: "*"), backslash = UInt8(ascii: "\\")
    static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t"), lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r"), minus = UInt8(ascii: "-")
    static let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
}

/// What starts at the reader's position, once white space and comments are skipped.
private enum Token: Equatable {
    case openBrace, closeBrace, openBracket, closeBracket, comma, colon
    case string, number, literal
    /// Text that starts no token: a stray word or character.
    case junk
    /// A `/*` that is never closed: the rest of the text is a comment.
    case unterminatedComment
    case end

    /// Whether a value starts here.
    var startsValue: Bool { [.openBrace, .openBracket, .string, .number, .literal].contains(self) }
}

private struct RecoveringReader {
    let bytes: [UInt8]
    var position = 0
    var errors: [JSONCSyntaxError] = []
    /// An error was reported and no member or element has been read whole since: further errors are its echoes.
    var isRecovering = false
    /// The containers open around the position, by kind: a closer of an enclosing one ends the inner ones.
    var openObjects = 0
    var openArrays = 0
    /// Set when the rest of the text cannot be read (nesting too deep, a comment never closed): it reads as the end.
    var isStopped = false
    /// The end was reached inside a container: said once, at the innermost one.
    var isEndReported = false

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: - The document

    mutating func readDocument() -> JSONCReading {
        var value: JSONCValue?
        while value == nil {
            let token = peek()
            if token == .end {
                report("unexpected end of file: expected a value")
                break
            }
            if token.startsValue || token == .junk || token == .unterminatedComment {
                value = readValue(depth: 0)
            } else {
                report("unexpected character \(described(at: position)): expected a value")
                position += 1
            }
        }
        if peek() != .end {
            report("unexpected text after the JSON value")
        }
        return JSONCReading(value: value, errors: errors)
    }

    /// Records an error at `offset` (the position by default), unless it echoes one already reported.
    mutating func report(_ message: String, at offset: Int? = nil) {
        guard !isRecovering else { return }
        isRecovering = true
        if errors.count < JSONC.maximumErrors {
            errors.append(JSONCSyntaxError(offset: offset ?? position, message: message))
        } else if errors.count == JSONC.maximumErrors {
            errors.append(
                JSONCSyntaxError(
                    offset: offset ?? position,
                    message: "more syntax errors follow; only the first \(JSONC.maximumErrors) are listed"))
        }
    }

    /// Reports the end of the text inside a container, unless it was reported already (for an inner one).
    mutating func reportEnd(_ message: String, at offset: Int) {
        if !isEndReported { report(message, at: offset) }
        isEndReported = true
    }

    // MARK: - Tokens

    /// Skips white space and comments (and a byte order mark at the start), then names what starts at `position`
    /// without consuming it.
    mutating func peek() -> Token {
        skipTrivia()
        guard !isStopped, position < bytes.count else { return .end }
        switch bytes[position] {
        case Byte.openBrace: return .openBrace
        case Byte.closeBrace: return .closeBrace
        case Byte.openBracket: return .openBracket
        case Byte.closeBracket: return .closeBracket
        case Byte.comma: return .comma
        case Byte.colon: return .colon
        case Byte.quote: return .string
        case Byte.minus, Byte.digits: return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): return .literal
        case Byte.slash where position + 1 < bytes.count && bytes[position + 1] == Byte.star: return .unterminatedComment
        default: return .junk
        }
    }

    mutating func skipTrivia() {
        while position < bytes.count {
            switch bytes[position] {
            case Byte.space, Byte.tab, Byte.lineFeed, Byte.carriageReturn:
                position += 1
            case Byte.slash where position + 1 < bytes.count && bytes[position + 1] == Byte.slash:
                position += 2
                while position < bytes.count, bytes[position] != Byte.lineFeed, bytes[position] != Byte.carriageReturn {
                    position += 1
                }
            case Byte.slash where position + 1 < bytes.count && bytes[position + 1] == Byte.star:
                var index = position + 2
                while index + 1 < bytes.count, !(bytes[index] == Byte.star && bytes[index + 1] == Byte.slash) {
                    index += 1
                }
                // A comment never closed is left for `peek` to name.
                guard index + 1 < bytes.count else { return }
                position = index + 2
            case 0xEF where position == 0 && bytes.count >= 3 && bytes[1] == 0xBB && bytes[2] == 0xBF:
                position = 3
            default:
                return
            }
        }
    }

    /// Whether `byte` ends a run of stray text: white space, punctuation JSON uses, a quote or a slash.
    static func endsJunk(_ byte: UInt8) -> Bool {
        switch byte {
        case Byte.space, Byte.tab, Byte.lineFeed, Byte.carriageReturn, Byte.openBrace, Byte.closeBrace,
            Byte.openBracket, Byte.closeBracket, Byte.comma, Byte.colon, Byte.quote, Byte.slash:
            true
        default: false
        }
    }

    /// Moves past a run of stray text (at least one byte).
    mutating func skipJunk() {
        position += 1
        while position < bytes.count, !Self.endsJunk(bytes[position]) { position += 1 }
    }

    /// The character at `offset` for a message: `'x'`, or the byte's value when it is a control character.
    func described(at offset: Int) -> String {
        let byte = bytes[offset]
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        if byte >= 0x80 {
            let end = min(offset + JSONC.utf8Width(byte), bytes.count)
            return "'\(String(decoding: bytes[offset..<end], as: UTF8.self))'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x" + (hex.count < 2 ? "0" + hex : hex)
    }

    /// Reports a comment that is never closed and stops reading there.
    mutating func stopAtUnterminatedComment() {
        report("unterminated /* comment")
        isStopped = true
    }

    // MARK: - Values

    /// Reads the value expected at the position; nil (after reporting) when none starts there. Stray text before it
    /// is skipped; a closer, a comma or a colon is left for the container to deal with.
    mutating func readValue(depth: Int) -> JSONCValue? {
        while true {
            let token = peek()
            switch token {
            case .openBrace, .openBracket:
                guard depth < JSONC.maximumDepth else {
                    report("nesting is too deep")
                    isStopped = true
                    return nil
                }
                return token == .openBrace ? readObject(depth: depth) : readArray(depth: depth)
            case .string:
                let start = position
                let string = readString()
                return JSONCValue(kind: .string(string), range: start..<position)
            case .number: return readNumber()
            case .literal: return readLiteral()
            case .junk:
                report("unexpected character \(described(at: position)): expected a value")
                skipJunk()
            case .unterminatedComment:
                stopAtUnterminatedComment()
                return nil
            case .end:
                report("unexpected end of file: expected a value")
                return nil
            case .closeBrace, .closeBracket, .comma, .colon:
                report("unexpected character \(described(at: position)): expected a value")
                return nil
            }
        }
    }

    mutating func readLiteral() -> JSONCValue? {
        let start = position
        for (word, kind) in [("true", JSONCValue.Kind.bool(true)), ("false", .bool(false)), ("null", .null)]
        where bytes[start...].starts(with: word.utf8) {
            position += word.utf8.count
            return JSONCValue(kind: kind, range: start..<position)
        }
        let word = bytes[start] == UInt8(ascii: "t") ? "true" : bytes[start] == UInt8(ascii: "f") ? "false" : "null"
        report("unexpected character: expected '\(word)'")
        skipJunk()
        return nil
    }

    mutating func readNumber() -> JSONCValue? {
        let start = position
        position += 1
        while position < bytes.count {
            let byte = bytes[position]
            guard Byte.digits.contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e")
                || byte == UInt8(ascii: "E") || byte == UInt8(ascii: "+") || byte == Byte.minus
            else { break }
            position += 1
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        guard text.utf8.contains(where: { Byte.digits.contains($0) }), let number = Double(text) else {
            report("malformed number '\(text)'", at: start)
            return nil
        }
        return JSONCValue(kind: .number(number), range: start..<position)
    }

    /// Reads the string whose opening quote is at the position. A string cut by a line break or the end of the
    /// text ends there (reported); a bad escape is kept as written (reported).
    mutating func readString() -> String {
        let start = position
        position += 1
        var decoded: [UInt8] = []
        var runStart = position
        while true {
            guard position < bytes.count else {
                report("unterminated string", at: start)
                decoded.append(contentsOf: bytes[runStart..<position])
                return String(decoding: decoded, as: UTF8.self)
            }
            let byte = bytes[position]
            if byte == Byte.quote {
                decoded.append(contentsOf: bytes[runStart..<position])
                position += 1
                return String(decoding: decoded, as: UTF8.self)
            }
            if byte == Byte.lineFeed || byte == Byte.carriageReturn {
                report("unterminated string (a line break inside a string must be written \\n)", at: start)
                decoded.append(contentsOf: bytes[runStart..<position])
                return String(decoding: decoded, as: UTF8.self)
            }
            if byte == Byte.backslash {
                decoded.append(contentsOf: bytes[runStart..<position])
                decodeEscape(into: &decoded)
                runStart = position
                continue
            }
            position += 1
        }
    }

    /// Decodes the escape at the position (a backslash) and moves past it; a bad one is kept as written.
    mutating func decodeEscape(into decoded: inout [UInt8]) {
        let escapeStart = position
        guard position + 1 < bytes.count else {
            position += 1
            return  // the string is unterminated: `readString` says so
        }
        let escaped = bytes[position + 1]
        position += 2
        switch escaped {
        case Byte.quote, Byte.backslash, Byte.slash: decoded.append(escaped)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(Byte.lineFeed)
        case UInt8(ascii: "r"): decoded.append(Byte.carriageReturn)
        case UInt8(ascii: "t"): decoded.append(Byte.tab)
        case UInt8(ascii: "u"):
            guard var unit = readHex() else {
                report(position + 4 <= bytes.count ? "invalid \\u escape" : "incomplete \\u escape", at: escapeStart)
                decoded.append(contentsOf: bytes[escapeStart..<position])
                return
            }
            if (0xD800...0xDBFF).contains(unit), position + 1 < bytes.count, bytes[position] == Byte.backslash,
                bytes[position + 1] == UInt8(ascii: "u")
            {
                let saved = position
                position += 2
                if let low = readHex(), (0xDC00...0xDFFF).contains(low) {
                    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                } else {
                    position = saved
                }
            }
            // A lone surrogate cannot be represented in a Swift string: it becomes U+FFFD, as VS Code shows it.
            decoded.append(contentsOf: Array(String(Unicode.Scalar(unit) ?? "\u{FFFD}").utf8))
        default:
            report("invalid escape '\\\(Character(Unicode.Scalar(escaped)))' in string", at: escapeStart)
            decoded.append(contentsOf: bytes[escapeStart..<min(escapeStart + 2, bytes.count)])
        }
    }

    /// The four hex digits at the position, consumed; nil (nothing consumed) when they are not four hex digits.
    mutating func readHex() -> UInt32? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[position..<(position + 4)] {
            let digit: UInt8
            switch byte {
            case Byte.digits: digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value * 16 + UInt32(digit)
        }
        position += 4
        return value
    }

    // MARK: - Containers

    /// Reads the object whose `{` is at the position, recovering inside it (see the invariants above).
    mutating func readObject(depth: Int) -> JSONCValue {
        let start = position
        position += 1
        openObjects += 1
        defer { openObjects -= 1 }
        var members: [JSONCMember] = []
        var expectsMember = true  // after `{` or `,`
        func value(_ members: [JSONCMember]) -> JSONCValue { JSONCValue(kind: .object(members), range: start..<position) }
        while true {
            let token = peek()
            switch token {
            case .closeBrace:
                let closer = position
                position += 1
                // Beyond jsonc-parser: a `}` that closes the top-level object while more members follow is a stray one.
                if depth == 0, membersFollow() {
                    report("unexpected character '}': more entries follow it, so it is read as a stray '}'", at: closer)
                    expectsMember = false
                    continue
                }
                return value(members)
            case .end:
                reportEnd("unexpected end of file: '{' is never closed", at: start)
                return value(members)
            case .unterminatedComment:
                stopAtUnterminatedComment()
            case .closeBracket:
                report("unexpected character ']': expected \(expectsMember ? "a quoted key" : "','") or '}'")
                // Beyond jsonc-parser: the `]` of an enclosing array closes this object (its `}` is missing).
                if openArrays > 0 { return value(members) }
                position += 1
            case .comma:
                if expectsMember { report("unexpected character ',': expected a quoted key or '}'") }
                position += 1
                expectsMember = true
            case .string:
                if !expectsMember { report("unexpected character '\"': expected ',' or '}'") }
                if let member = readMember(depth: depth) {
                    members.append(member)
                    isRecovering = false
                }
                expectsMember = false
            case .junk:
                report("unexpected character \(described(at: position)): expected \(expectsMember ? "a quoted key" : "','") or '}'")
                skipJunk()
            case .colon:
                report("unexpected character ':': expected \(expectsMember ? "a quoted key" : "','") or '}'")
                position += 1
            case .openBrace, .openBracket, .number, .literal:
                // A value without a key: read past it, and dropped.
                report("unexpected character \(described(at: position)): expected \(expectsMember ? "a quoted key" : "','") or '}'")
                _ = readValue(depth: depth + 1)
                expectsMember = false
            }
        }
    }

    /// Whether a member (`"key"`, or `, "key"`) starts at the position; nothing is consumed.
    mutating func membersFollow() -> Bool {
        let saved = position
        defer { position = saved }
        var token = peek()
        if token == .comma {
            position += 1
            token = peek()
        }
        return token == .string
    }

    /// Reads `"key": value` at the position; nil when it has no value (the key alone is dropped).
    mutating func readMember(depth: Int) -> JSONCMember? {
        let keyStart = position
        let key = readString()
        let keyRange = keyStart..<position
        let next = peek()
        if next == .colon {
            position += 1
        } else {
            report("expected ':' after the key \"\(key)\"")
            guard next.startsValue else { return nil }
        }
        guard let value = readValue(depth: depth + 1) else { return nil }
        return JSONCMember(key: key, keyRange: keyRange, value: value)
    }

    /// Reads the array whose `[` is at the position, recovering inside it (see the invariants above).
    mutating func readArray(depth: Int) -> JSONCValue {
        let start = position
        position += 1
        openArrays += 1
        defer { openArrays -= 1 }
        var elements: [JSONCValue] = []
        var expectsElement = true  // after `[` or `,`
        func value(_ elements: [JSONCValue]) -> JSONCValue { JSONCValue(kind: .array(elements), range: start..<position) }
        while true {
            let token = peek()
            switch token {
            case .closeBracket:
                position += 1
                return value(elements)
            case .end:
                reportEnd("unexpected end of file: '[' is never closed", at: start)
                return value(elements)
            case .unterminatedComment:
                stopAtUnterminatedComment()
            case .closeBrace:
                report("unexpected character '}': expected \(expectsElement ? "a value" : "','") or ']'")
                // Beyond jsonc-parser: the `}` of an enclosing object closes this array (its `]` is missing).
                if openObjects > 0 { return value(elements) }
                position += 1
            case .comma:
                if expectsElement { report("unexpected character ',': expected a value") }
                position += 1
                expectsElement = true
            case .colon:
                report("unexpected character ':': expected ',' or ']'")
                position += 1
            case .junk:
                report("unexpected character \(described(at: position)): expected \(expectsElement ? "a value" : "','") or ']'")
                skipJunk()
            case .openBrace, .openBracket, .string, .number, .literal:
                if !expectsElement { report("unexpected character \(described(at: position)): expected ',' or ']'") }
                if let element = readValue(depth: depth + 1) {
                    elements.append(element)
                    isRecovering = false
                }
                expectsElement = false
            }
        }
    }
}
