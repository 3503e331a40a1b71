extension LineTable {
    /// Applies a batch of LSP-style edits (each in the coordinates left by the one before, as `didChange` sends
    /// them) in one pass over the text: a gap buffer whose gap walks to each edit, tracking the line and column
    /// it is at. Edits in document order or in reverse (multi-cursor, replace-all) cost the text's size plus
    /// what they insert and delete, where applying each to a new copy of the text cost edits × size.
    ///
    /// Positions resolve exactly as `utf8Offset(line:column:in:)`: a column past the end of its line is the end
    /// of the line, a line past the end is the end of the text, a column inside a multi-unit character rounds
    /// down, and an end before its start deletes nothing.
    public struct Editor: Sendable {
        private let encoding: PositionEncoding
        /// The bytes before the gap.
        private var before: [UInt8]
        /// The bytes after the gap, last byte first (so moving the gap is an append and a removeLast).
        private var after: [UInt8]
        /// Offsets in `before` of the starts of lines 0 through the gap's line.
        private var starts: [Int]
        /// The gap's column, in code units of `encoding`.
        private var column = 0
        /// Bytes moved, scanned or written so far: the batch's cost, for tests and the benchmark.
        public private(set) var bytesVisited = 0

        /// The table of the text while no edit has been applied: the first edit's line is found through it.
        private var untouched: LineTable?

        /// An editor over `table`'s text; columns count code units of `encoding`.
        public init(_ table: LineTable, encoding: PositionEncoding) {
            self.encoding = encoding
            before = []
            after = []
            starts = [0]
            untouched = table
        }

        /// The text with every edit so far applied.
        public var text: String {
            if let untouched { return untouched.text }
            return String(decoding: before + after.reversed(), as: UTF8.self)
        }

        /// Replaces the range from (`startLine`, `startColumn`) to (`endLine`, `endColumn`) with `newText`.
        public mutating func replace(
            startLine: Int, startColumn: Int, endLine: Int, endColumn: Int, with newText: String
        ) {
            move(toLine: startLine, column: startColumn)
            let keptBefore = before.count
            let keptStarts = starts.count
            let keptColumn = column
            if (endLine, endColumn) > (line, column) {
                // Walk to the end, then forget what was walked over: that is the deleted text.
                moveForward(toLine: endLine, column: endColumn)
                before.removeLast(before.count - keptBefore)
                starts.removeLast(starts.count - keptStarts)
                column = keptColumn
            }
            for byte in newText.utf8 { append(byte) }
        }

        /// The gap's line.
        private var line: Int { starts.count - 1 }

        private mutating func move(toLine targetLine: Int, column targetColumn: Int) {
            // A negative line is the start of the text.
            let (targetLine, targetColumn) = targetLine < 0 ? (0, 0) : (targetLine, max(0, targetColumn))
            if let table = untouched {
                // The first edit: split the text at the start of its line, known from the table.
                untouched = nil
                let line = min(targetLine, table.lineCount - 1)
                let bytes = Array(table.text.utf8)
                before = Array(bytes[..<table.lineStarts[line]])
                after = Array(bytes[table.lineStarts[line]...].reversed())
                starts = Array(table.lineStarts[...line])
                bytesVisited += bytes.count
            }
            if (targetLine, targetColumn) >= (line, column) {
                moveForward(toLine: targetLine, column: targetColumn)
                return
            }
            if targetLine < line || targetColumn == 0 {
                // Back to the start of the target line, then forward to the column.
                let start = starts[targetLine]
                let count = before.count - start
                after.append(contentsOf: before[start...].reversed())
                before.removeLast(count)
                starts.removeLast(starts.count - targetLine - 1)
                column = 0
                bytesVisited += count
                moveForward(toLine: targetLine, column: targetColumn)
                return
            }
            // Back along the same line, one character at a time (a long line is not rescanned from its start).
            while column > targetColumn {
                var lead = before.removeLast()
                after.append(lead)
                bytesVisited += 1
                while lead & 0xC0 == 0x80 {
                    lead = before.removeLast()
                    after.append(lead)
                    bytesVisited += 1
                }
                column -= width(ofLead: lead)
            }
        }

        private mutating func moveForward(toLine targetLine: Int, column targetColumn: Int) {
            while line < targetLine, let byte = after.popLast() {
                append(byte)
            }
            guard line == targetLine else { return }  // past the end of the text
            // A position is never between the `\r` and `\n` of one line break.
            if before.last == UInt8(ascii: "\r"), after.last == UInt8(ascii: "\n") { append(after.removeLast()) }
            while column < targetColumn, let lead = after.last, lead != UInt8(ascii: "\n"), lead != UInt8(ascii: "\r") {
                let width = width(ofLead: lead)
                guard column + width <= targetColumn else { return }  // inside a character: its start
                append(after.removeLast())
                while let next = after.last, next & 0xC0 == 0x80 { append(after.removeLast()) }
            }
        }

        /// Puts `byte` before the gap, keeping the line starts and the column as `LineTable` counts them.
        private mutating func append(_ byte: UInt8) {
            let previous = before.last
            before.append(byte)
            bytesVisited += 1
            switch byte {
            case UInt8(ascii: "\n"):
                if previous == UInt8(ascii: "\r") { starts[starts.count - 1] = before.count } else { starts.append(before.count) }
                column = 0
            case UInt8(ascii: "\r"):
                starts.append(before.count)
                column = 0
            case 0x80...0xBF:
                break  // a continuation byte: counted with its lead byte
            default:
                column += width(ofLead: byte)
            }
        }

        /// Code units of `encoding` in the character whose UTF-8 lead byte is `lead`.
        private func width(ofLead lead: UInt8) -> Int {
            let utf8Length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            switch encoding {
            case .utf8: return utf8Length
            case .utf16: return utf8Length == 4 ? 2 : 1
            case .utf32: return 1
            }
        }
    }
}
