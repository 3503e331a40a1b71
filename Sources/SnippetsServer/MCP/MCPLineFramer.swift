/// Newline-delimited JSON-RPC framing, as MCP's stdio transport defines it: one message per line, no embedded
/// newlines, a line ending in `\n` (a `\r` before it is dropped).
///
/// **Invariant:** the framer never holds more than `maximumLineLength` bytes of one line. A longer line is not
/// buffered: its first `keptPrefixLength` bytes are kept (to find the request's `id` and answer it), the rest is
/// dropped as it arrives, and reading resumes at the next newline.
public struct MCPLineFramer: Sendable {
    /// What one line came to.
    public enum Frame: Equatable, Sendable {
        /// A complete line (without its newline); may still be invalid JSON.
        case message([UInt8])
        /// A line over `maximumLineLength` bytes, dropped; `prefix` is its start, `length` how long it was.
        case oversized(prefix: [UInt8], length: Int)
    }

    /// The longest line read (4 MiB): far above any question, snippet or argument a tool takes.
    public static let defaultMaximumLineLength = 4 * 1024 * 1024
    /// How much of an oversized line is kept to read its `id` from.
    public static let keptPrefixLength = 4 * 1024

    public let maximumLineLength: Int
    private var line: [UInt8] = []
    /// Set while dropping the rest of an oversized line: its prefix and how many bytes it has had so far.
    private var dropping: (prefix: [UInt8], length: Int)?

    /// A framer that refuses lines longer than `maximumLineLength` bytes.
    public init(maximumLineLength: Int = defaultMaximumLineLength) {
        self.maximumLineLength = maximumLineLength
    }

    /// Feeds `chunk` and returns the lines it completed, in order. Blank lines are skipped.
    public mutating func append(_ chunk: [UInt8]) -> [Frame] {
        var frames: [Frame] = []
        var start = chunk.startIndex
        while start < chunk.endIndex {
            let newline = chunk[start...].firstIndex(of: UInt8(ascii: "\n"))
            let piece = chunk[start..<(newline ?? chunk.endIndex)]
            take(piece)
            guard let newline else { break }
            if let frame = finishLine() { frames.append(frame) }
            start = newline + 1
        }
        return frames
    }

    /// The bytes of an unfinished last line, at the end of input (a client may omit the final newline).
    public mutating func finish() -> Frame? {
        finishLine()
    }

    private mutating func take(_ piece: ArraySlice<UInt8>) {
        if var state = dropping {
            state.length += piece.count
            dropping = state
            return
        }
        if line.count + piece.count > maximumLineLength {
            var prefix = line
            prefix.append(contentsOf: piece.prefix(max(0, Self.keptPrefixLength - prefix.count)))
            dropping = (Array(prefix.prefix(Self.keptPrefixLength)), line.count + piece.count)
            line = []
            return
        }
        line.append(contentsOf: piece)
    }

    private mutating func finishLine() -> Frame? {
        if let state = dropping {
            dropping = nil
            return .oversized(prefix: state.prefix, length: state.length)
        }
        defer { line = [] }
        var end = line.endIndex
        if end > 0, line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let body = line[..<end]
        guard body.contains(where: { !Self.isWhitespace($0) }) else { return nil }
        return .message(Array(body))
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }

    /// The `id` member of the JSON object whose first bytes are `prefix`, when it is a top-level member that
    /// appears whole in those bytes (MCP clients write `jsonrpc`, `id` and `method` before `params`). Strings are
    /// skipped with their escapes, so an `"id"` inside a value never counts.
    public static func requestID(inPrefix prefix: [UInt8]) -> RequestID? {
        var index = 0
        var depth = 0
        var expectingKey = false
        func skipWhitespace() { while index < prefix.count, isWhitespace(prefix[index]) { index += 1 } }
        /// The string starting at `index` (a quote), decoded only when short and free of escapes; index moves past it.
        func string() -> (text: String?, closed: Bool) {
            let start = index + 1
            index += 1
            var escaped = false
            while index < prefix.count {
                let byte = prefix[index]
                index += 1
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    let bytes = prefix[start..<(index - 1)]
                    let plain = bytes.count <= 200 && !bytes.contains(UInt8(ascii: "\\"))
                    return (plain ? String(decoding: bytes, as: UTF8.self) : nil, true)
                }
            }
            return (nil, false)
        }
        skipWhitespace()
        guard index < prefix.count, prefix[index] == UInt8(ascii: "{") else { return nil }
        while index < prefix.count {
            let byte = prefix[index]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                expectingKey = byte == UInt8(ascii: "{") && depth == 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                index += 1
            case UInt8(ascii: ","):
                expectingKey = depth == 1
                index += 1
            case UInt8(ascii: "\""):
                let isKey = expectingKey
                expectingKey = false
                let (key, closed) = string()
                guard closed else { return nil }
                guard isKey, key == "id" else { continue }
                skipWhitespace()
                guard index < prefix.count, prefix[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                skipWhitespace()
                guard index < prefix.count else { return nil }
                if prefix[index] == UInt8(ascii: "\"") {
                    let (text, closed) = string()
                    guard closed, let text else { return nil }
                    return .string(text)
                }
                var end = index
                while end < prefix.count, prefix[end] == UInt8(ascii: "-") || (prefix[end] >= 0x30 && prefix[end] <= 0x39) { end += 1 }
                // A number cut off by the end of the prefix could be longer than it looks.
                guard end < prefix.count, end > index, let number = Int(String(decoding: prefix[index..<end], as: UTF8.self))
                else { return nil }
                return .number(number)
            default:
                index += 1
            }
        }
        return nil
    }
}
