/// A reader for the part of YAML 1.1 that configuration files such as espanso's use, keeping the source range of
/// every key and scalar. It reads block mappings and sequences (compact `- key: value` included), block scalars
/// (`|` and `>`, chomping and indentation indicators), single- and double-quoted scalars with escapes, plain
/// scalars over several lines, flow sequences and mappings, comments, `---` / `...` markers around one document,
/// anchors and aliases. Scalars are not typed: a plain `true` stays the text `true` with the style `plain`.
///
/// It stops at the first thing it does not read (tags, directives, complex `?` keys, a second document, a
/// collection used as a key, tabs used as indentation) with a `YAMLSyntaxError` at that byte. Every step moves
/// forward through the bytes and looks back only within a line, so reading costs time linear in the input;
/// aliases cannot expand past `maximumWeight` nodes, and nesting past `maximumDepth` is refused.
public enum YAML {
    /// Parses UTF-8 `bytes` into the document's root node; nil for a document with no content.
    public static func parse(_ bytes: [UInt8]) -> Result<YAMLNode?, YAMLSyntaxError> {
        var parser = YAMLParser(bytes: bytes)
        do {
            return .success(try parser.parseStream())
        } catch let error as YAMLSyntaxError {
            return .failure(error)
        } catch {
            return .failure(YAMLSyntaxError(offset: parser.pos, message: "unreadable YAML"))
        }
    }

    /// Nesting deeper than this is refused rather than risking the stack on hostile input.
    public static let maximumDepth = 64
    /// The most nodes a document may stand for with its aliases expanded ("billion laughs" stops here).
    public static let maximumWeight = 1_000_000
}

private let space = UInt8(ascii: " ")
private let tab = UInt8(ascii: "\t")
private let lineFeed = UInt8(ascii: "\n")
private let carriageReturn = UInt8(ascii: "\r")
private let hash = UInt8(ascii: "#")
private let colon = UInt8(ascii: ":")
private let dash = UInt8(ascii: "-")
private let comma = UInt8(ascii: ",")

struct YAMLParser {
    let bytes: [UInt8]
    var pos = 0
    var lineStart = 0
    var depth = 0
    var anchors: [String: YAMLNode] = [:]

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// What came just before a block node: where it may start and what it may be.
    enum Context {
        case document, mappingValue, sequenceEntry
    }

    var column: Int { pos - lineStart }
    var atEnd: Bool { pos >= bytes.count }

    func peek(_ ahead: Int = 0) -> UInt8 {
        pos + ahead < bytes.count ? bytes[pos + ahead] : 0
    }

    static func isBreak(_ byte: UInt8) -> Bool { byte == lineFeed || byte == carriageReturn }
    static func isBreakOrEnd(_ byte: UInt8) -> Bool { byte == 0 || isBreak(byte) }
    static func isBlankOrEnd(_ byte: UInt8) -> Bool { byte == 0 || byte == space || byte == tab || isBreak(byte) }
    static func isFlowIndicator(_ byte: UInt8) -> Bool {
        byte == comma || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "{")
            || byte == UInt8(ascii: "}")
    }

    func error(_ message: String, at offset: Int? = nil) -> YAMLSyntaxError {
        YAMLSyntaxError(offset: min(offset ?? pos, bytes.count), message: message)
    }

    /// Consumes one line break (`\r\n`, `\n` or `\r`) if there is one.
    @discardableResult
    mutating func lineBreak() -> Bool {
        if peek() == carriageReturn {
            pos += peek(1) == lineFeed ? 2 : 1
        } else if peek() == lineFeed {
            pos += 1
        } else {
            return false
        }
        lineStart = pos
        return true
    }

    mutating func skipSpaces() {
        while peek() == space || peek() == tab { pos += 1 }
    }

    mutating func skipComment() {
        if peek() == hash {
            while !Self.isBreakOrEnd(peek()) { pos += 1 }
        }
    }

    /// Skips spaces, comments and line breaks up to the next content; true when a line break was crossed. A tab
    /// before the first content of a line is an error: YAML indents with spaces only.
    @discardableResult
    mutating func skipToContent() throws -> Bool {
        var crossed = false
        while true {
            if pos == lineStart {
                while peek() == space { pos += 1 }
                if peek() == tab {
                    var ahead = pos
                    while ahead < bytes.count, bytes[ahead] == tab || bytes[ahead] == space { ahead += 1 }
                    let next: UInt8 = ahead < bytes.count ? bytes[ahead] : 0
                    if !Self.isBreakOrEnd(next) && next != hash {
                        throw error("a tab indents this line; YAML indents with spaces only")
                    }
                }
            }
            skipSpaces()
            skipComment()
            if lineBreak() { crossed = true } else { return crossed }
        }
    }

    /// Whether a `---` or `...` line starts here (at the start of a line).
    var atDocumentMarker: Bool {
        guard column == 0, pos + 3 <= bytes.count else { return false }
        let a = bytes[pos]
        guard (a == dash || a == UInt8(ascii: ".")) && bytes[pos + 1] == a && bytes[pos + 2] == a else { return false }
        return Self.isBlankOrEnd(peek(3))
    }

    mutating func enter() throws {
        depth += 1
        if depth > YAML.maximumDepth { throw error("nesting is too deep (over \(YAML.maximumDepth) levels)") }
    }

    mutating func weighed(_ kind: YAMLNode.Kind, range: Range<Int>, children: Int) throws -> YAMLNode {
        let weight = children + 1
        if weight > YAML.maximumWeight {
            throw error("aliases make this document stand for over \(YAML.maximumWeight) values", at: range.lowerBound)
        }
        return YAMLNode(kind: kind, range: range, weight: weight)
    }

    // MARK: Stream and block nodes

    mutating func parseStream() throws -> YAMLNode? {
        // YAML text holds no NUL byte; refusing one here keeps `peek()`'s 0 meaning the end everywhere below.
        if let nul = bytes.firstIndex(of: 0) {
            throw error("a NUL byte: YAML text cannot hold one", at: nul)
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            pos = 3
            lineStart = 3
        }
        try skipToContent()
        if peek() == UInt8(ascii: "%") && column == 0 {
            throw error("YAML directives ('%…') are not read")
        }
        var root: YAMLNode?
        var explicitStart = false
        if atDocumentMarker && peek() == dash {
            pos += 3
            explicitStart = true
        }
        try skipToContent()
        if !atEnd && !atDocumentMarker {
            root = try parseBlockNode(parentIndent: -1, context: .document, start: pos)
        }
        try skipToContent()
        if atDocumentMarker && peek() == UInt8(ascii: ".") {
            pos += 3
            try skipToContent()
        }
        if atDocumentMarker && peek() == dash {
            throw error("a second document starts here; only one document per file is read")
        }
        if !atEnd {
            throw error(column == 0 && !explicitStart ? "unexpected text after the document" : "unexpected text here")
        }
        if root?.isNull ?? false, root!.range.isEmpty { return nil }
        return root
    }

    func empty(at offset: Int) -> YAMLNode {
        YAMLNode(kind: .scalar(YAMLScalar(value: "", style: .plain, anchors: [])), range: offset..<offset, weight: 1)
    }

    /// Reads the block node that follows an indicator (`key:`, `- `, the document start). Content on a later line
    /// belongs to it when indented past `parentIndent` (a sequence after `key:` may sit at the key's column).
    mutating func parseBlockNode(parentIndent: Int, context: Context, start: Int) throws -> YAMLNode {
        try enter()
        defer { depth -= 1 }
        let sameLine = try !skipToContent() && context != .document
        if atEnd || atDocumentMarker { return empty(at: start) }
        if !sameLine && column <= parentIndent {
            let isSequence = peek() == dash && Self.isBlankOrEnd(peek(1))
            guard context == .mappingValue && column == parentIndent && isSequence else { return empty(at: start) }
        }
        let nodeColumn = column
        // Properties: an anchor before the node (tags are not read).
        var anchor: String?
        var anchorStart = pos
        if peek() == UInt8(ascii: "&") {
            anchorStart = pos
            anchor = try readAnchorName()
            skipSpaces()
            if Self.isBreakOrEnd(peek()) || peek() == hash {
                // The anchored node starts on a later line.
                let node = try parseBlockNode(parentIndent: parentIndent, context: context, start: pos)
                anchors[anchor!] = node
                return node
            }
        }
        if peek() == UInt8(ascii: "!") {
            throw error("YAML tags ('!…') are not read")
        }
        let node = try parseBlockContent(parentIndent: parentIndent, context: context, sameLine: sameLine, column: nodeColumn)
        if let anchor {
            if case .mapping = node.kind, node.range.lowerBound >= anchorStart, bytes[node.range.lowerBound] != UInt8(ascii: "{") {
                throw error("an anchor before a mapping key is not read", at: anchorStart)
            }
            anchors[anchor] = node
        }
        return node
    }

    mutating func parseBlockContent(parentIndent: Int, context: Context, sameLine: Bool, column nodeColumn: Int) throws
        -> YAMLNode
    {
        let start = pos
        switch peek() {
        case dash where Self.isBlankOrEnd(peek(1)):
            if sameLine && context == .mappingValue {
                throw error("a list cannot start on the same line as its key; start it on the next line")
            }
            return try parseBlockSequence(column: column)
        case UInt8(ascii: "*"):
            pos += 1
            let nameStart = pos
            while !Self.isBlankOrEnd(peek()) && !Self.isFlowIndicator(peek()) { pos += 1 }
            let name = String(decoding: bytes[nameStart..<pos], as: UTF8.self)
            guard !name.isEmpty else { throw error("'*' needs an alias name", at: start) }
            guard let node = anchors[name] else { throw error("the alias '*\(name)' names no anchor before it", at: start) }
            skipSpaces()
            if peek() == colon && Self.isBlankOrEnd(peek(1)) {
                throw error("an alias used as a mapping key is not read", at: start)
            }
            return node
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            let node = try parseFlowNode()
            let after = pos
            skipSpaces()
            if peek() == colon && Self.isBlankOrEnd(peek(1)) {
                throw error("a flow collection used as a mapping key is not read", at: start)
            }
            pos = after
            return node
        case UInt8(ascii: "|"), UInt8(ascii: ">"):
            return try parseBlockScalar(parentIndent: parentIndent)
        case UInt8(ascii: "?") where Self.isBlankOrEnd(peek(1)):
            throw error("complex mapping keys ('? …') are not read")
        case UInt8(ascii: "@"), UInt8(ascii: "`"):
            throw error("a plain value cannot start with '\(Character(Unicode.Scalar(peek())))'; quote it")
        case UInt8(ascii: "%") where nodeColumn == 0:
            throw error("YAML directives ('%…') are not read")
        default:
            if isMappingKey() {
                if sameLine && context == .mappingValue {
                    throw error("a mapping cannot start on the same line as its key (is a ': ' inside a plain value?)")
                }
                return try parseBlockMapping(column: column)
            }
            if peek() == UInt8(ascii: "\"") || peek() == UInt8(ascii: "'") {
                return try parseQuoted()
            }
            return try parsePlain(indent: parentIndent + 1, flow: false)
        }
    }

    mutating func readAnchorName() throws -> String {
        let start = pos
        pos += 1
        let nameStart = pos
        while !Self.isBlankOrEnd(peek()) && !Self.isFlowIndicator(peek()) { pos += 1 }
        guard pos > nameStart else { throw error("'&' needs an anchor name", at: start) }
        return String(decoding: bytes[nameStart..<pos], as: UTF8.self)
    }

    /// Whether a simple key (`key:` on this line, plain or quoted) starts here. Looks no further than this line.
    mutating func isMappingKey() -> Bool {
        let saved = (pos, lineStart)
        defer { (pos, lineStart) = saved }
        if peek() == UInt8(ascii: "\"") || peek() == UInt8(ascii: "'") {
            guard (try? parseQuoted(singleLine: true)) != nil else { return false }
        } else {
            guard (try? parsePlain(indent: 0, flow: false, singleLine: true)) != nil else { return false }
        }
        skipSpaces()
        return peek() == colon && Self.isBlankOrEnd(peek(1))
    }

    mutating func parseKey() throws -> YAMLNode {
        let start = pos
        if peek() == UInt8(ascii: "\"") || peek() == UInt8(ascii: "'") {
            return try parseQuoted(singleLine: true)
        }
        if peek() == UInt8(ascii: "&") || peek() == UInt8(ascii: "*") || peek() == UInt8(ascii: "!") {
            throw error("anchors, aliases and tags on mapping keys are not read", at: start)
        }
        return try parsePlain(indent: 0, flow: false, singleLine: true)
    }

    mutating func parseBlockMapping(column mappingColumn: Int) throws -> YAMLNode {
        try enter()
        defer { depth -= 1 }
        let start = pos
        var members: [YAMLMember] = []
        var weight = 0
        var end = pos
        while true {
            guard isMappingKey() else {
                throw error("expected 'key: value' here, at the indentation of the keys above")
            }
            let key = try parseKey()
            skipSpaces()
            pos += 1  // the ':' isMappingKey found
            let value = try parseBlockNode(parentIndent: mappingColumn, context: .mappingValue, start: pos)
            members.append(YAMLMember(key: key, value: value))
            weight += key.weight + value.weight
            if weight > YAML.maximumWeight {
                throw error("aliases make this document stand for over \(YAML.maximumWeight) values", at: start)
            }
            end = max(end, value.range.isEmpty ? key.range.upperBound : value.range.upperBound)
            try skipToContent()
            if atEnd || atDocumentMarker || column < mappingColumn { break }
            if column > mappingColumn {
                throw error("this line is indented more than the keys above, but no key above takes a nested value")
            }
            if peek() == dash && Self.isBlankOrEnd(peek(1)) {
                throw error("a list item here, at the indentation of the keys above; indent it under a key")
            }
        }
        return try weighed(.mapping(members), range: start..<end, children: weight)
    }

    mutating func parseBlockSequence(column sequenceColumn: Int) throws -> YAMLNode {
        try enter()
        defer { depth -= 1 }
        let start = pos
        var items: [YAMLNode] = []
        var weight = 0
        var end = pos
        while true {
            let dashEnd = pos + 1
            pos += 1
            let item = try parseBlockNode(parentIndent: sequenceColumn, context: .sequenceEntry, start: pos)
            items.append(item)
            weight += item.weight
            if weight > YAML.maximumWeight {
                throw error("aliases make this document stand for over \(YAML.maximumWeight) values", at: start)
            }
            end = max(end, item.range.isEmpty ? dashEnd : item.range.upperBound)
            try skipToContent()
            if atEnd || atDocumentMarker || column < sequenceColumn { break }
            if column > sequenceColumn {
                throw error("this line is indented more than the list items above, but no item above takes a nested value")
            }
            guard peek() == dash && Self.isBlankOrEnd(peek(1)) else { break }
        }
        return try weighed(.sequence(items), range: start..<end, children: weight)
    }

    // MARK: Scalars

    /// Collects a scalar's value bytes and where each stretch came from.
    struct ValueBuilder {
        var bytes: [UInt8] = []
        var anchors: [BodySourceMap.Anchor] = []

        mutating func appendVerbatim(_ source: ArraySlice<UInt8>, at offset: Int) {
            guard !source.isEmpty else { return }
            mark(offset, verbatim: true)
            bytes.append(contentsOf: source)
        }

        mutating func appendConverted(_ text: [UInt8], from offset: Int) {
            guard !text.isEmpty else { return }
            mark(offset, verbatim: false)
            bytes.append(contentsOf: text)
        }

        mutating func mark(_ offset: Int, verbatim: Bool) {
            let anchor = BodySourceMap.Anchor(outputUTF16: bytes.count, sourceUTF8: offset, isVerbatim: verbatim)
            if let last = anchors.last, last.outputUTF16 == bytes.count {
                anchors[anchors.count - 1] = anchor
            } else {
                anchors.append(anchor)
            }
        }

        func scalar(_ style: YAMLScalar.Style) -> YAMLScalar {
            YAMLScalar(value: String(decoding: bytes, as: UTF8.self), style: style, anchors: anchors)
        }
    }

    /// A plain scalar, folded over lines as PyYAML's `scan_plain` does: continuation lines must sit at `indent` or
    /// deeper (in block context), a comment or a line starting a document ends it, and `: ` ends it (so a
    /// continuation line holding `key: value` is an error for the caller).
    mutating func parsePlain(indent: Int, flow: Bool, singleLine: Bool = false) throws -> YAMLNode {
        let start = pos
        let first = peek()
        if first == 0 || Self.isBlankOrEnd(first)
            || (Self.indicators.contains(first)
                && !((first == dash || first == UInt8(ascii: "?") || first == colon) && !Self.isBlankOrEnd(peek(1))
                    && !(flow && Self.isFlowIndicator(peek(1)))))
        {
            throw error("unexpected character here: expected a value")
        }
        var value = ValueBuilder()
        var pendingSpaces: (bytes: [UInt8], offset: Int, verbatim: Bool)? = nil
        var end = pos
        var lastLineStart = lineStart
        while true {
            if peek() == hash { break }
            var length = 0
            while true {
                let byte = peek(length)
                if Self.isBlankOrEnd(byte) { break }
                if byte == colon {
                    let next = peek(length + 1)
                    if Self.isBlankOrEnd(next) || (flow && Self.isFlowIndicator(next)) { break }
                }
                if flow && (Self.isFlowIndicator(byte) || byte == UInt8(ascii: "?")) { break }
                length += 1
            }
            if length == 0 { break }
            if let spaces = pendingSpaces {
                if spaces.verbatim {
                    value.appendVerbatim(bytes[spaces.offset..<(spaces.offset + spaces.bytes.count)], at: spaces.offset)
                } else {
                    value.appendConverted(spaces.bytes, from: spaces.offset)
                }
            }
            value.appendVerbatim(bytes[pos..<(pos + length)], at: pos)
            pos += length
            end = pos
            lastLineStart = lineStart
            // scan_plain_spaces
            let spacesStart = pos
            while peek() == space || (peek() == tab) { pos += 1 }
            if Self.isBreak(peek()) {
                if singleLine { break }
                let breakStart = spacesStart
                lineBreak()
                if atDocumentMarker { break }
                var breaks = 0
                while peek() == space || Self.isBreak(peek()) {
                    if peek() == space {
                        pos += 1
                    } else {
                        lineBreak()
                        breaks += 1
                        if atDocumentMarker { break }
                    }
                }
                if atDocumentMarker { break }
                let folded: [UInt8] = breaks == 0 ? [space] : Array(repeating: lineFeed, count: breaks)
                pendingSpaces = (folded, breakStart, false)
            } else if pos > spacesStart {
                pendingSpaces = (Array(bytes[spacesStart..<pos]), spacesStart, true)
            } else {
                pendingSpaces = nil
            }
            if pendingSpaces == nil || peek() == hash || (!flow && column < indent) { break }
            if peek() == tab && pos == lineStart {
                throw error("a tab indents this line; YAML indents with spaces only")
            }
        }
        // Whatever was skipped past the value (spaces, breaks) is read again by the caller.
        pos = end
        lineStart = lastLineStart
        return YAMLNode(kind: .scalar(value.scalar(.plain)), range: start..<end, weight: 1)
    }

    /// A single- or double-quoted scalar, folded and unescaped as PyYAML's `scan_flow_scalar` does.
    mutating func parseQuoted(singleLine: Bool = false) throws -> YAMLNode {
        let start = pos
        let quote = peek()
        let double = quote == UInt8(ascii: "\"")
        pos += 1
        var value = ValueBuilder()
        while true {
            // Non-space runs, quotes and escapes.
            let runStart = pos
            while true {
                let byte = peek()
                if byte == 0 || byte == space || byte == tab || Self.isBreak(byte) || byte == UInt8(ascii: "'")
                    || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
                {
                    break
                }
                pos += 1
            }
            value.appendVerbatim(bytes[runStart..<pos], at: runStart)
            let byte = peek()
            if atEnd {
                throw error("this quoted value is not closed: the file ends inside it", at: start)
            }
            if byte == quote {
                if !double && peek(1) == quote {
                    value.appendConverted([quote], from: pos)
                    pos += 2
                    continue
                }
                pos += 1
                break
            }
            if (double && byte == UInt8(ascii: "'")) || (!double && (byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\"))) {
                value.appendVerbatim(bytes[pos..<(pos + 1)], at: pos)
                pos += 1
                continue
            }
            if double && byte == UInt8(ascii: "\\") {
                try readEscape(into: &value, singleLine: singleLine)
                continue
            }
            // Spaces and line breaks.
            let spacesStart = pos
            while peek() == space || peek() == tab { pos += 1 }
            if atEnd {
                throw error("this quoted value is not closed: the file ends inside it", at: start)
            }
            if Self.isBreak(peek()) {
                if singleLine { throw error("a key must fit on one line") }
                lineBreak()
                let breaks = try quotedBreaks()
                value.appendConverted(breaks == 0 ? [space] : Array(repeating: lineFeed, count: breaks), from: spacesStart)
            } else if pos > spacesStart {
                value.appendVerbatim(bytes[spacesStart..<pos], at: spacesStart)
            } else {
                throw error("unexpected byte in a quoted value")  // every byte is handled above; never loop in place
            }
        }
        return YAMLNode(kind: .scalar(value.scalar(double ? .doubleQuoted : .singleQuoted)), range: start..<pos, weight: 1)
    }

    /// Skips the blank lines and indentation after a line break inside a quoted scalar; returns the blank lines.
    mutating func quotedBreaks() throws -> Int {
        var breaks = 0
        while true {
            if atDocumentMarker { throw error("a document marker inside a quoted value") }
            while peek() == space || peek() == tab { pos += 1 }
            if Self.isBreak(peek()) {
                lineBreak()
                breaks += 1
            } else {
                return breaks
            }
        }
    }

    /// Bytes that cannot start a plain scalar (`-`, `?` and `:` can, before a non-blank).
    static let indicators: [UInt8] = Array("-?:,[]{}#&*!|>'\"%@`".utf8)

    /// The one-character escapes of double-quoted scalars.
    static let simpleEscapes: [UInt8: [UInt8]] = [
            UInt8(ascii: "0"): [0], UInt8(ascii: "a"): [7], UInt8(ascii: "b"): [8], UInt8(ascii: "t"): [9], tab: [9],
            UInt8(ascii: "n"): [10], UInt8(ascii: "v"): [11], UInt8(ascii: "f"): [12], UInt8(ascii: "r"): [13],
            UInt8(ascii: "e"): [27], space: [32], UInt8(ascii: "\""): [34], UInt8(ascii: "/"): [47],
            UInt8(ascii: "\\"): [92], UInt8(ascii: "N"): Array("\u{85}".utf8), UInt8(ascii: "_"): Array("\u{A0}".utf8),
            UInt8(ascii: "L"): Array("\u{2028}".utf8), UInt8(ascii: "P"): Array("\u{2029}".utf8),
        ]

    mutating func readEscape(into value: inout ValueBuilder, singleLine: Bool) throws {
        let start = pos
        pos += 1
        let code = peek()
        if let replacement = Self.simpleEscapes[code] {
            pos += 1
            value.appendConverted(replacement, from: start)
            return
        }
        let digits: Int
        switch code {
        case UInt8(ascii: "x"): digits = 2
        case UInt8(ascii: "u"): digits = 4
        case UInt8(ascii: "U"): digits = 8
        default:
            if Self.isBreak(code) {
                if singleLine { throw error("a key must fit on one line") }
                lineBreak()
                // An escaped line break joins the lines with nothing between them; blank lines still count.
                let breaks = try quotedBreaks()
                if breaks > 0 { value.appendConverted(Array(repeating: lineFeed, count: breaks), from: start) }
                return
            }
            throw error("unknown escape '\\\(code < 0x80 && code >= 0x20 ? String(Character(Unicode.Scalar(code))) : "…")' in a double-quoted value", at: start)
        }
        pos += 1
        var scalar: UInt32 = 0
        for _ in 0..<digits {
            let byte = peek()
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("'\\\(Character(Unicode.Scalar(code)))' needs \(digits) hexadecimal digits", at: start)
            }
            scalar = scalar << 4 | digit
            pos += 1
        }
        guard let unicode = Unicode.Scalar(scalar) else {
            throw error("'\\\(Character(Unicode.Scalar(code)))' names no Unicode character", at: start)
        }
        value.appendConverted(Array(String(Character(unicode)).utf8), from: start)
    }

    /// A literal (`|`) or folded (`>`) block scalar, read as PyYAML's `scan_block_scalar` reads it.
    mutating func parseBlockScalar(parentIndent: Int) throws -> YAMLNode {
        let start = pos
        let folded = peek() == UInt8(ascii: ">")
        pos += 1
        var chomping: Bool? = nil  // nil clip, true keep, false strip
        var increment: Int? = nil
        for _ in 0..<2 {
            let byte = peek()
            if (byte == UInt8(ascii: "+") || byte == dash) && chomping == nil {
                chomping = byte == UInt8(ascii: "+")
                pos += 1
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") && increment == nil {
                guard byte != UInt8(ascii: "0") else {
                    throw error("a block scalar's indentation indicator is 1 to 9, not 0")
                }
                increment = Int(byte - UInt8(ascii: "0"))
                pos += 1
            }
        }
        let afterIndicators = pos
        skipSpaces()
        if peek() == hash && pos > afterIndicators { skipComment() }
        guard Self.isBreakOrEnd(peek()) else {
            throw error("expected a comment or the end of the line after '\(folded ? ">" : "|")'")
        }
        var end = pos
        lineBreak()
        let minIndent = max(parentIndent + 1, 1)
        var value = ValueBuilder()
        var breaks: [(offset: Int, count: Int)] = []
        var indent: Int
        if let increment {
            indent = minIndent + increment - 1
            breaks = blockBreaks(indent: indent)
        } else {
            var maxIndent = 0
            var breakCount = 0
            let breakOffset = pos
            while peek() == space || Self.isBreak(peek()) {
                if peek() == space {
                    pos += 1
                    maxIndent = max(maxIndent, column)
                } else {
                    lineBreak()
                    breakCount += 1
                }
            }
            if breakCount > 0 { breaks = [(breakOffset, breakCount)] }
            indent = max(minIndent, maxIndent)
        }
        func appendBreaks(_ list: [(offset: Int, count: Int)]) {
            for item in list { value.appendConverted(Array(repeating: lineFeed, count: item.count), from: item.offset) }
        }
        var lineBreakSeen = false  // PyYAML's line_break: '' until a content line ends with one
        var lastBreakOffset = pos
        while column == indent && !atEnd {
            appendBreaks(breaks)
            let leadingNonSpace = peek() != space && peek() != tab
            let lineStartOffset = pos
            while !Self.isBreakOrEnd(peek()) { pos += 1 }
            value.appendVerbatim(bytes[lineStartOffset..<pos], at: lineStartOffset)
            end = pos
            lastBreakOffset = pos
            lineBreakSeen = lineBreak()
            breaks = blockBreaks(indent: indent)
            if column == indent && !atEnd {
                if folded && lineBreakSeen && leadingNonSpace && peek() != space && peek() != tab {
                    if breaks.isEmpty { value.appendConverted([space], from: lastBreakOffset) }
                } else if lineBreakSeen {
                    value.appendConverted([lineFeed], from: lastBreakOffset)
                }
            } else {
                break
            }
        }
        if chomping != false && lineBreakSeen { value.appendConverted([lineFeed], from: lastBreakOffset) }
        if chomping == true { appendBreaks(breaks) }
        if column > 0 && column < indent && !Self.isBreakOrEnd(peek()) && peek() != hash && column > parentIndent {
            throw error("this line is less indented than the block scalar above it, but more than its key")
        }
        return YAMLNode(kind: .scalar(value.scalar(folded ? .folded : .literal)), range: start..<end, weight: 1)
    }

    /// PyYAML's `scan_block_scalar_breaks`: indentation up to `indent`, then blank lines.
    mutating func blockBreaks(indent: Int) -> [(offset: Int, count: Int)] {
        var count = 0
        while column < indent && peek() == space { pos += 1 }
        let offset = pos
        while Self.isBreak(peek()) {
            lineBreak()
            count += 1
            while column < indent && peek() == space { pos += 1 }
        }
        return count == 0 ? [] : [(offset, count)]
    }

    // MARK: Flow collections

    /// Skips spaces, line breaks and comments inside a flow collection.
    mutating func skipFlowTrivia() {
        while true {
            skipSpaces()
            skipComment()
            if !lineBreak() { return }
        }
    }

    mutating func parseFlowNode() throws -> YAMLNode {
        try enter()
        defer { depth -= 1 }
        var anchor: String?
        if peek() == UInt8(ascii: "&") {
            anchor = try readAnchorName()
            skipFlowTrivia()
        }
        let start = pos
        let node: YAMLNode
        switch peek() {
        case UInt8(ascii: "["):
            pos += 1
            var items: [YAMLNode] = []
            var weight = 0
            while true {
                skipFlowTrivia()
                if peek() == UInt8(ascii: "]") { break }
                let item = try parseFlowNode()
                skipFlowTrivia()
                if peek() == colon {
                    throw error("a 'key: value' pair inside a flow list is not read; write it as '{key: value}'")
                }
                items.append(item)
                weight += item.weight
                if weight > YAML.maximumWeight {
                    throw error("aliases make this document stand for over \(YAML.maximumWeight) values", at: start)
                }
                if peek() == comma {
                    pos += 1
                } else if peek() != UInt8(ascii: "]") {
                    throw error(atEnd ? "this flow list is not closed: the file ends inside it" : "expected ',' or ']' in this flow list", at: atEnd ? start : nil)
                }
            }
            pos += 1
            node = try weighed(.sequence(items), range: start..<pos, children: weight)
        case UInt8(ascii: "{"):
            pos += 1
            var members: [YAMLMember] = []
            var weight = 0
            while true {
                skipFlowTrivia()
                if peek() == UInt8(ascii: "}") { break }
                let key = try parseFlowNode()
                guard key.scalar != nil else { throw error("a collection used as a mapping key is not read", at: key.range.lowerBound) }
                skipFlowTrivia()
                var value = empty(at: pos)
                if peek() == colon {
                    pos += 1
                    skipFlowTrivia()
                    if peek() != comma && peek() != UInt8(ascii: "}") {
                        value = try parseFlowNode()
                        skipFlowTrivia()
                    }
                }
                members.append(YAMLMember(key: key, value: value))
                weight += key.weight + value.weight
                if weight > YAML.maximumWeight {
                    throw error("aliases make this document stand for over \(YAML.maximumWeight) values", at: start)
                }
                if peek() == comma {
                    pos += 1
                } else if peek() != UInt8(ascii: "}") {
                    throw error(atEnd ? "this flow mapping is not closed: the file ends inside it" : "expected ',' or '}' in this flow mapping", at: atEnd ? start : nil)
                }
            }
            pos += 1
            node = try weighed(.mapping(members), range: start..<pos, children: weight)
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            node = try parseQuoted()
        case UInt8(ascii: "*"):
            pos += 1
            let nameStart = pos
            while !Self.isBlankOrEnd(peek()) && !Self.isFlowIndicator(peek()) { pos += 1 }
            let name = String(decoding: bytes[nameStart..<pos], as: UTF8.self)
            guard let target = anchors[name] else { throw error("the alias '*\(name)' names no anchor before it", at: start) }
            node = target
        case UInt8(ascii: "!"):
            throw error("YAML tags ('!…') are not read")
        case UInt8(ascii: "|"), UInt8(ascii: ">"):
            throw error("a block scalar cannot sit inside a flow collection")
        case UInt8(ascii: "]"), UInt8(ascii: "}"), comma:
            throw error("expected a value here")
        default:
            if atEnd { throw error("the file ends inside a flow collection") }
            node = try parsePlain(indent: 0, flow: true)
        }
        if let anchor { anchors[anchor] = node }
        return node
    }
}
