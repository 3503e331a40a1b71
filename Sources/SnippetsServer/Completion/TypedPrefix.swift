import SnippetsCore

/// What the user has typed before the cursor, in the forms completion looks up (the non-whitespace run, the word,
/// and the runs of several words a trigger may span).
public struct TypedPrefix: Hashable, Sendable {
    /// A run of typed text and where it is on the line.
    public struct Run: Hashable, Sendable {
        /// The text, e.g. `///` or `fn`.
        public var text: String
        /// UTF-8 offsets of the run in the document.
        public var utf8Range: Range<Int>
    }

    /// The maximal run of non-whitespace characters before the cursor (catches triggers such as `///` or `!`);
    /// nil when the cursor follows whitespace or starts the line.
    public var longRun: Run?
    /// The trailing run of word characters (letters, digits, `_`) before the cursor; nil when there is none.
    public var wordRun: Run?
    /// The UTF-8 offset where the word continuing after the cursor ends (the end of an insert-replace edit).
    public var wordEndAfterCursor: Int
    /// The line before the cursor: its last `maximumRunLength` characters at most, where the runs of several words
    /// are found.
    public var lineBeforeCursor: String
    /// Whether `lineBeforeCursor` is the whole line before the cursor (it was not cut).
    public var reachesLineStart: Bool
    /// The cursor's UTF-8 offset.
    public var cursor: Int

    /// Runs longer than this many characters are not typed prefixes (no trigger is that long), so scanning stops
    /// here and a completion inside a megabyte-long line costs what one inside a short line does.
    public static let maximumRunLength = 256

    /// The typed prefix at a cursor given as a UTF-8 offset into `table`'s text.
    public init(at cursor: Int, in table: LineTable) {
        let line = table.line(containingUTF8Offset: cursor)
        let lineStart = table.lineStarts[line]
        let before = table.slice(lineStart..<cursor)
        let after = table.slice(cursor..<table.contentEnd(ofLine: line))

        let limit = Self.maximumRunLength
        let nonWhitespace = before.reversed().prefix(limit + 1).prefix { !$0.isWhitespace }
        let longText = nonWhitespace.count > limit ? "" : String(nonWhitespace.reversed())
        longRun = longText.isEmpty ? nil : Run(text: longText, utf8Range: cursor - longText.utf8.count..<cursor)

        let word = before.reversed().prefix(limit + 1).prefix(while: Self.isWordCharacter)
        let wordText = word.count > limit ? "" : String(word.reversed())
        wordRun = wordText.isEmpty ? nil : Run(text: wordText, utf8Range: cursor - wordText.utf8.count..<cursor)

        let continuing = after.prefix(limit).prefix(while: Self.isWordCharacter)
        wordEndAfterCursor = cursor + String(continuing).utf8.count

        let tail = before.suffix(limit + 1)
        reachesLineStart = tail.count <= limit
        lineBeforeCursor = String(tail.suffix(limit))
        self.cursor = cursor
    }

    /// The runs of two to `words` whitespace-separated words that end at the cursor, as typed (the whitespace
    /// between them included), the most words first: where a trigger of several words (UltiSnips' `"if else"`)
    /// is looked up. None when the cursor follows whitespace, and none that starts in a word cut off by
    /// `maximumRunLength`.
    public func multiWordRuns(upTo words: Int) -> [Run] {
        guard words > 1, longRun != nil else { return [] }
        var runs: [Run] = []
        let text = lineBeforeCursor
        var start = text.endIndex
        var count = 0
        while count < words {
            // Back over one word, then the whitespace before it.
            while start > text.startIndex, !text[text.index(before: start)].isWhitespace { start = text.index(before: start) }
            if start == text.startIndex, !reachesLineStart { break }
            count += 1
            if count > 1 {
                let run = String(text[start...])
                runs.append(Run(text: run, utf8Range: cursor - run.utf8.count..<cursor))
            }
            while start > text.startIndex, text[text.index(before: start)].isWhitespace { start = text.index(before: start) }
            if start == text.startIndex { break }
        }
        return runs.reversed()
    }

    /// Letters, digits and `_`.
    public static func isWordCharacter(_ character: Character) -> Bool {
        character == "_" || character.isLetter || character.isNumber
    }
}
