/// What the framer found at the start of its buffer.
public enum FrameEvent: Equatable, Sendable {
    /// A complete message body.
    case message([UInt8])
    /// A header block that cannot be used (no valid `Content-Length`); it was skipped.
    case malformedHeader(reason: String)
}

/// `Content-Length` framing as a pure function over bytes, plus a small buffer that feeds it.
///
/// Header names are matched case-insensitively, unknown headers (such as `Content-Type`) are skipped, and a
/// message may arrive in any number of pieces or several in one piece.
public struct MessageFramer: Sendable {
    /// The result of looking for one frame at the start of some bytes.
    public enum Parse: Equatable, Sendable {
        /// A body, and how many bytes (header + body) it used.
        case frame(body: ArraySlice<UInt8>, consumed: Int)
        /// Not enough bytes yet.
        case incomplete
        /// A header block without a usable length; `consumed` skips it.
        case malformedHeader(reason: String, consumed: Int)
    }

    private var buffer: [UInt8] = []

    /// An empty framer.
    public init() {}

    /// The longest header block read; a longer run of bytes without a blank line is not a header.
    public static let maximumHeaderLength = 8 * 1024
    /// The largest `Content-Length` accepted (64 MiB). A larger one is refused rather than buffered, so a wrong
    /// length cannot make the server hold every later byte waiting for a body that never ends.
    public static let maximumBodyLength = 64 * 1024 * 1024

    /// Looks for one frame at the start of `bytes`. Pure: it only reads.
    ///
    /// After a malformed header block, `consumed` stops at the next `Content-Length` inside it when there is one,
    /// so the framer finds its footing again after a body shorter than its header said (the rest of such a body
    /// runs into the next message's header).
    public static func parse(_ bytes: ArraySlice<UInt8>) -> Parse {
        guard let headerEnd = headerTerminator(in: bytes) else {
            guard bytes.count > maximumHeaderLength else { return .incomplete }
            return .malformedHeader(
                reason: "no end of headers within \(maximumHeaderLength) bytes",
                consumed: resynchronisation(in: bytes, before: bytes.endIndex) ?? bytes.count - 16)
        }
        let malformed = { (reason: String) -> Parse in
            .malformedHeader(
                reason: reason,
                consumed: resynchronisation(in: bytes, before: headerEnd.lowerBound) ?? headerEnd.upperBound - bytes.startIndex)
        }
        let headerText = String(decoding: bytes[bytes.startIndex..<headerEnd.lowerBound], as: UTF8.self)
        var length: Int?
        for line in headerText.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else {
                return malformed("header line without a colon: \(line.prefix(80))")
            }
            let name = line[..<colon].trimmingSpaces().lowercased()
            if name == "content-length" {
                let value = line[line.index(after: colon)...].trimmingSpaces()
                guard let number = Int(value), number >= 0 else {
                    return malformed("Content-Length is not a length: \(value.prefix(40))")
                }
                guard number <= maximumBodyLength else {
                    return malformed("Content-Length \(number) is over the limit of \(maximumBodyLength) bytes")
                }
                length = number
            }
        }
        guard let length else { return malformed("no Content-Length header") }
        let bodyStart = headerEnd.upperBound
        guard bytes.endIndex - bodyStart >= length else { return .incomplete }
        return .frame(body: bytes[bodyStart..<bodyStart + length], consumed: bodyStart + length - bytes.startIndex)
    }

    /// How many bytes from the start of `bytes` the next `Content-Length` (any case) begins, looking after the first
    /// byte and before `end`; nil when there is none.
    private static func resynchronisation(in bytes: ArraySlice<UInt8>, before end: Int) -> Int? {
        let name = Array("content-length".utf8)
        var index = bytes.startIndex + 1
        while index + name.count <= end {
            if zip(bytes[index..<index + name.count], name).allSatisfy({ byte, expected in
                (65...90).contains(byte) ? byte | 0x20 == expected : byte == expected
            }) {
                return index - bytes.startIndex
            }
            index += 1
        }
        return nil
    }

    /// The header block's terminator (`\r\n\r\n`, or a lenient `\n\n`) within the first `maximumHeaderLength`
    /// bytes, as indices into `bytes`.
    private static func headerTerminator(in bytes: ArraySlice<UInt8>) -> Range<Int>? {
        var index = bytes.startIndex
        let end = min(bytes.endIndex, bytes.startIndex + maximumHeaderLength + 4)
        while index < end {
            if bytes[index] == 10 {  // \n
                if index + 1 < bytes.endIndex, bytes[index + 1] == 10 { return index..<index + 2 }
                if index + 2 < bytes.endIndex, bytes[index + 1] == 13, bytes[index + 2] == 10 {
                    return (index > bytes.startIndex && bytes[index - 1] == 13 ? index - 1 : index)..<index + 3
                }
            }
            index += 1
        }
        return nil
    }

    /// The bytes of one framed message.
    public static func frame(_ body: [UInt8]) -> [UInt8] {
        Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
    }

    /// Adds bytes that arrived.
    public mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete event, or nil when more bytes are needed.
    public mutating func next() -> FrameEvent? {
        // Blank lines between messages are tolerated, as some clients send a trailing newline.
        let leading = buffer.prefix { $0 == 13 || $0 == 10 }.count
        if leading > 0 { buffer.removeFirst(leading) }
        switch Self.parse(buffer[...]) {
        case .incomplete:
            return nil
        case .frame(let body, let consumed):
            let message = Array(body)
            buffer.removeFirst(consumed)
            return .message(message)
        case .malformedHeader(let reason, let consumed):
            buffer.removeFirst(consumed)
            return .malformedHeader(reason: reason)
        }
    }

    /// Whether input may end here cleanly: nothing but blank lines is left over.
    public var isAtMessageBoundary: Bool { buffer.allSatisfy { $0 == 13 || $0 == 10 || $0 == 32 } }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
