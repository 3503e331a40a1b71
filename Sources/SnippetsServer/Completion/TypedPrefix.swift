import SnippetsCore

/// What the user has typed before the cursor, in the two forms completion looks up.
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
    }

    /// Letters, digits and `_`.
    public static func isWordCharacter(_ character: Character) -> Bool {
        character == "_" || character.isLetter || character.isNumber
    }
}
