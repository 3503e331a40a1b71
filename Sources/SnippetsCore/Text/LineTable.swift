#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Line starts of a text, and the one place where offsets and LSP-style positions are converted in any
/// `PositionEncoding`. Lines end at `\n`, `\r\n` or `\r`, as LSP specifies.
public struct LineTable: Sendable {
    public let text: String
    /// UTF-8 offsets at which each line starts; the first is always 0.
    public let lineStarts: [Int]

    /// UTF-16 code units and scalars before every `checkpointStride`-th byte (counted by lead bytes), so an offset
    /// becomes a column by walking at most that many bytes, not the line from its start; nil for ASCII text, where
    /// every encoding's column is the byte column. Placing many problems on one long line stays linear in bytes.
    private let checkpoints: Checkpoints?

    private struct Checkpoints: Sendable {
        var utf16: [Int32] = []
        var scalars: [Int32] = []
    }

    /// Bytes between checkpoints.
    private static let checkpointStride = 64

    public init(_ text: String) {
        var text = text
        self.text = text
        var starts = [0]
        var checkpoints = Checkpoints()
        let isASCII = text.withUTF8 { bytes in
            // Line starts first. Without a CR (most files), each LF is found by `memchr`.
            guard let base = bytes.baseAddress else { return true }
            if memchr(base, Int32(UInt8(ascii: "\r")), bytes.count) == nil {
                var offset = 0
                while offset < bytes.count, let found = memchr(base + offset, Int32(UInt8(ascii: "\n")), bytes.count - offset) {
                    offset = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
                    starts.append(offset)
                }
            } else {
                Self.lineStarts(of: bytes, into: &starts)
            }
            guard ASCIIBytes.containsNonASCII(bytes) else { return true }
            // Then, for non-ASCII text only, the UTF-16 and scalar counts before every `checkpointStride`-th byte.
            checkpoints.utf16.reserveCapacity(bytes.count / Self.checkpointStride + 1)
            checkpoints.scalars.reserveCapacity(bytes.count / Self.checkpointStride + 1)
            var utf16 = 0
            var scalars = 0
            var offset = 0
            while offset < bytes.count {
                checkpoints.utf16.append(Int32(truncatingIfNeeded: utf16))
                checkpoints.scalars.append(Int32(truncatingIfNeeded: scalars))
                let end = min(offset + Self.checkpointStride, bytes.count)
                while offset < end {
                    let byte = bytes[offset]
                    if byte & 0xC0 != 0x80 {
                        scalars += 1
                        utf16 += byte >= 0xF0 ? 2 : 1
                    }
                    offset += 1
                }
            }
            if bytes.count % Self.checkpointStride == 0 {
                // The end of the text sits on a checkpoint's place: `units(before:)` the end reads it.
                checkpoints.utf16.append(Int32(truncatingIfNeeded: utf16))
                checkpoints.scalars.append(Int32(truncatingIfNeeded: scalars))
            }
            return false
        }
        self.lineStarts = starts
        self.checkpoints = isASCII ? nil : checkpoints
    }

    /// Appends to `starts` the offset after each line break of `bytes`: `\n`, `\r\n` or `\r`.
    private static func lineStarts(of bytes: UnsafeBufferPointer<UInt8>, into starts: inout [Int]) {
        var previousWasCR = false
        for offset in bytes.indices {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\n") {
                if previousWasCR { starts[starts.count - 1] = offset + 1 } else { starts.append(offset + 1) }
                previousWasCR = false
            } else if byte == UInt8(ascii: "\r") {
                starts.append(offset + 1)
                previousWasCR = true
            } else {
                // A character after a CR ends that line break (a later LF starts a line of its own).
                previousWasCR = false
            }
        }
    }

    public var lineCount: Int { lineStarts.count }

    /// The UTF-8 offset one past the last content byte of `line` (before its line break).
    public func contentEnd(ofLine line: Int) -> Int {
        let utf8 = text.utf8
        var end = line + 1 < lineStarts.count ? lineStarts[line + 1] : utf8.count
        let startIndex = utf8.startIndex
        while end > lineStarts[line] {
            let byte = utf8[utf8.index(startIndex, offsetBy: end - 1)]
            guard byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") else { break }
            end -= 1
        }
        return end
    }

    /// The text of `line` without its line break.
    public func content(ofLine line: Int) -> Substring {
        guard line >= 0, line < lineStarts.count else { return "" }
        return slice(lineStarts[line]..<contentEnd(ofLine: line))
    }

    /// The text between two UTF-8 offsets (clamped to the text and rounded down to scalar boundaries).
    public func slice(_ range: Range<Int>) -> Substring {
        let utf8 = text.utf8
        let lower = utf8.index(utf8.startIndex, offsetBy: max(0, min(range.lowerBound, utf8.count)))
        let upper = utf8.index(utf8.startIndex, offsetBy: max(0, min(range.upperBound, utf8.count)))
        let lowerScalar = lower.samePosition(in: text.unicodeScalars) ?? text.unicodeScalars.index(before: lower)
        let upperScalar = upper.samePosition(in: text.unicodeScalars) ?? text.unicodeScalars.index(before: upper)
        return text[lowerScalar..<max(lowerScalar, upperScalar)]
    }

    /// The line containing the UTF-8 `offset`.
    public func line(containingUTF8Offset offset: Int) -> Int {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The position of a UTF-8 offset, with its column in every encoding (an offset inside a character counts as
    /// that character's start). Costs a binary search and at most `checkpointStride` bytes, whatever the line's length.
    public func position(ofUTF8Offset offset: Int) -> SourcePosition {
        let offset = max(0, min(offset, text.utf8.count))
        let line = line(containingUTF8Offset: offset)
        let lineStart = lineStarts[line]
        guard checkpoints != nil else { return SourcePosition(line: line, asciiColumn: offset - lineStart) }
        let boundary = scalarBoundary(atOrBefore: offset)
        let end = units(before: boundary)
        let start = units(before: lineStart)
        return SourcePosition(
            line: line,
            utf8Column: boundary - lineStart,
            utf16Column: end.utf16 - start.utf16,
            scalarColumn: end.scalars - start.scalars
        )
    }

    /// Calls `body` with the text's bytes.
    private func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(text.utf8).withUnsafeBufferPointer(body)
    }

    /// `offset`, moved back to the start of the character it is inside.
    private func scalarBoundary(atOrBefore offset: Int) -> Int {
        withBytes { bytes in
            var boundary = min(offset, bytes.count)
            while boundary > 0, boundary < bytes.count, bytes[boundary] & 0xC0 == 0x80 { boundary -= 1 }
            return boundary
        }
    }

    /// UTF-16 code units and scalars in the text before the character boundary `offset`.
    private func units(before offset: Int) -> (utf16: Int, scalars: Int) {
        guard let checkpoints else { return (offset, offset) }
        let slot = offset / Self.checkpointStride
        var utf16 = Int(checkpoints.utf16[slot])
        var scalars = Int(checkpoints.scalars[slot])
        withBytes { bytes in
            for byte in bytes[(slot * Self.checkpointStride)..<offset] where byte & 0xC0 != 0x80 {
                scalars += 1
                utf16 += byte >= 0xF0 ? 2 : 1
            }
        }
        return (utf16, scalars)
    }

    /// The UTF-8 offset of an LSP-style position whose `column` counts code units of `encoding`.
    ///
    /// As LSP asks, a column past the end of its line means the end of the line, and a line past the end of the
    /// text means the end of the text. A column inside a multi-unit character rounds down to the character's start.
    public func utf8Offset(line: Int, column: Int, in encoding: PositionEncoding) -> Int {
        guard line >= 0 else { return 0 }
        guard line < lineStarts.count else { return text.utf8.count }
        let start = lineStarts[line]
        let end = contentEnd(ofLine: line)
        let content = slice(start..<end)
        var remaining = max(0, column)
        var offset = start
        for scalar in content.unicodeScalars {
            let width = encoding.width(of: scalar)
            guard remaining >= width else { break }
            remaining -= width
            offset += scalar.utf8.count
        }
        return offset
    }

    /// The `String.Index` of a UTF-8 offset in `text`.
    public func index(ofUTF8Offset offset: Int) -> String.Index {
        let utf8 = text.utf8
        return utf8.index(utf8.startIndex, offsetBy: max(0, min(offset, utf8.count)))
    }
}

extension LineTable {
    /// The UTF-8 offset reached by advancing `count` code units of `encoding` from the UTF-8 `offset`
    /// (clamped to the text; a count ending inside a multi-unit character stops before that character).
    public func utf8Offset(advancing count: Int, in encoding: PositionEncoding, from offset: Int) -> Int {
        let length = text.utf8.count
        let start = scalarBoundary(atOrBefore: max(0, min(offset, length)))
        guard count > 0 else { return start }
        let (sum, overflow) = start.addingReportingOverflow(count)
        let naive = overflow ? length : min(sum, length)
        guard let checkpoints, encoding != .utf8 else {
            return checkpoints == nil ? naive : scalarBoundary(atOrBefore: naive)
        }
        // The furthest character boundary whose units from `start` are at most `count`: the last checkpoint at or
        // below the target, then a walk of at most one stride.
        let counts = encoding == .utf16 ? checkpoints.utf16 : checkpoints.scalars
        let base = encoding == .utf16 ? units(before: start).utf16 : units(before: start).scalars
        let target = count > Int(Int32.max) ? Int.max : base + count
        var low = 0
        var high = counts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if Int(counts[middle]) <= target { low = middle } else { high = middle - 1 }
        }
        var position = start
        var reached = base
        if low * Self.checkpointStride > start {
            position = low * Self.checkpointStride
            reached = Int(counts[low])
        }
        return withBytes { bytes in
            while position < bytes.count, bytes[position] & 0xC0 == 0x80 { position += 1 }
            while position < bytes.count {
                let lead = bytes[position]
                let scalarLength = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
                let width = encoding == .utf16 && lead >= 0xF0 ? 2 : 1
                guard reached + width <= target else { break }
                reached += width
                position += scalarLength
            }
            return min(position, bytes.count)
        }
    }
}
