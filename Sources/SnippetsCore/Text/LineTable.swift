/// Line starts of a text, and the one place where offsets and LSP-style positions are converted in any
/// `PositionEncoding`. Lines end at `\n`, `\r\n` or `\r`, as LSP specifies.
public struct LineTable: Sendable {
    public let text: String
    /// UTF-8 offsets at which each line starts; the first is always 0.
    public let lineStarts: [Int]

    public init(_ text: String) {
        self.text = text
        var starts = [0]
        var offset = 0
        var previousWasCR = false
        for byte in text.utf8 {
            offset += 1
            if byte == UInt8(ascii: "\n") {
                if previousWasCR { starts[starts.count - 1] = offset } else { starts.append(offset) }
                previousWasCR = false
            } else if byte == UInt8(ascii: "\r") {
                starts.append(offset)
                previousWasCR = true
            } else {
                previousWasCR = false
            }
        }
        self.lineStarts = starts
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

    /// The position of a UTF-8 offset, with its column in every encoding.
    public func position(ofUTF8Offset offset: Int) -> SourcePosition {
        let offset = max(0, min(offset, text.utf8.count))
        let line = line(containingUTF8Offset: offset)
        let prefix = slice(lineStarts[line]..<offset)
        return SourcePosition(
            line: line,
            utf8Column: prefix.utf8.count,
            utf16Column: prefix.utf16.count,
            scalarColumn: prefix.unicodeScalars.count
        )
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
        let start = max(0, min(offset, text.utf8.count))
        guard count > 0 else { return start }
        var remaining = count
        var result = start
        for scalar in slice(start..<text.utf8.count).unicodeScalars {
            let width = encoding.width(of: scalar)
            guard remaining >= width else { break }
            remaining -= width
            result += scalar.utf8.count
            if remaining == 0 { break }
        }
        return result
    }
}
