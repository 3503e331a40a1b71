import Foundation

/// Where a quoted sentence sits in its snippet.
public enum QuoteField: String, Hashable, Sendable, Codable, CaseIterable {
    case description
    case body
}

/// A sentence of a snippet that an answer may quote: what the snippet shows of its file's text at `location` (see
/// `shownText`), so an editor can highlight its source. A snippet's quotable sentences are numbered in order
/// (`index`: description first, then body), the same numbers for the same file, so a per-question schema can offer
/// them as a choice.
public struct QuotableSentence: Hashable, Sendable {
    public var index: Int
    public var field: QuoteField
    /// The sentence as the snippet shows it: a description line as written, a body line as inserted (placeholders by
    /// their text, choices by their first option, tabstops as nothing).
    public var text: String
    /// The range of its source text in the snippet's file (snippet syntax included), in every position encoding.
    public var location: SourceLocation
    /// Its UTF-8 offsets in the file.
    public var fileUTF8Range: Range<Int>

    public init(index: Int, field: QuoteField, text: String, location: SourceLocation, fileUTF8Range: Range<Int>) {
        self.index = index
        self.field = field
        self.text = text
        self.location = location
        self.fileUTF8Range = fileUTF8Range
    }

    /// What a snippet shows for `source`, the text its file holds at a quote's location: a description's text as
    /// written; a piece of a body line read as `format` writes it (a JSON string's escapes, UltiSnips' syntax) and
    /// rendered as the body's plain text (placeholders by their text, choices by their first option, variables as
    /// the plain body shows them, tabstops and `$0` as nothing), trimmed. Nil when the piece cannot be read alone.
    public static func shownText(ofSource source: String, field: QuoteField, format: SnippetFormat) -> String? {
        guard field == .body else { return source }
        guard let body = FormatRegistry.format(format).bodyQuoting.bodyText(source) else { return nil }
        return AskWords.plainText(ofBody: body).trimmingWhitespace()
    }
}

/// Reads snippet files for quoting: the core does no I/O of its own.
public protocol SnippetSources: Sendable {
    /// The current bytes of the snippet file at `uri`; nil when it cannot be read.
    func bytes(ofFileAt uri: String) -> [UInt8]?
}

/// `SnippetSources` through a `LibraryFileSystem`, refusing files over the loader's size limit.
public struct FileSystemSnippetSources: SnippetSources {
    public let fileSystem: any LibraryFileSystem
    public let maximumSize: Int

    public init(fileSystem: any LibraryFileSystem, maximumSize: Int = LibraryLoader.defaultMaximumFileSize) {
        self.fileSystem = fileSystem
        self.maximumSize = maximumSize
    }

    public func bytes(ofFileAt uri: String) -> [UInt8]? {
        guard let path = DocumentURI(uri).filePath else { return nil }
        return try? fileSystem.contents(of: path, maximumSize: maximumSize)
    }
}

/// A snippet file as read for one ask: its bytes only. Positions are counted from a snippet's own location, so
/// quoting costs the entry's bytes (and one scan for its first line), never a table of the whole file.
struct QuoteFile: Sendable {
    let bytes: [UInt8]
    /// Whether the file holds a `\r` (then lines are counted byte by byte, as `LineTable` counts them).
    let hasCarriageReturns: Bool

    init(bytes: [UInt8]) {
        self.bytes = bytes
        hasCarriageReturns = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return false }
            return memchr(base, 0x0D, buffer.count) != nil
        }
    }

    /// The text of the file at `range`, or nil when the range is outside it or splits a character.
    func text(at range: Range<Int>) -> String? {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else { return nil }
        return String(validating: bytes[range], as: UTF8.self)
    }

    /// The offset where zero-based `line` starts (after `\n`, `\r\n` or `\r`, as `LineTable` counts), searching
    /// from `offset`, which starts line `fromLine`; nil past the end.
    func offset(ofLine line: Int, from offset: Int = 0, fromLine: Int = 0) -> Int? {
        if !hasCarriageReturns {
            // Only `\n` breaks lines: memchr finds each, so a line far into a large file costs little.
            return bytes.withUnsafeBufferPointer { buffer -> Int? in
                guard let base = buffer.baseAddress else { return line == fromLine ? offset : nil }
                var current = fromLine
                var position = offset
                while current < line {
                    guard position < buffer.count,
                        let found = memchr(base + position, 0x0A, buffer.count - position)
                    else { return nil }
                    position = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
                    current += 1
                }
                return position
            }
        }
        var current = fromLine
        var position = offset
        while current < line {
            guard position < bytes.count else { return nil }
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "\n") || (byte == UInt8(ascii: "\r") && (position >= bytes.count || bytes[position] != UInt8(ascii: "\n"))) {
                current += 1
            }
        }
        return position
    }

    /// The offset of `position` (a line and its UTF-8 column), searching from `offset` on line `fromLine`.
    func offset(of position: SourcePosition, from offset: Int = 0, fromLine: Int = 0) -> Int? {
        guard let start = self.offset(ofLine: position.line, from: offset, fromLine: fromLine) else { return nil }
        let result = start + position.utf8Column
        return result <= bytes.count ? result : nil
    }

    /// The positions of `offsets` (each at or after `base`, which is at `basePosition`), by walking the bytes
    /// between: lines as `LineTable` counts them, columns in every encoding.
    func positions(of offsets: [Int], from base: Int, at basePosition: SourcePosition) -> [Int: SourcePosition] {
        var result: [Int: SourcePosition] = [:]
        var position = basePosition
        var wanted = offsets.filter { $0 >= base }.sorted()[...]
        var offset = base
        while let next = wanted.first {
            if offset == next {
                result[next] = position
                wanted = wanted.dropFirst()
                continue
            }
            guard offset < bytes.count else { break }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                let crlf = byte == UInt8(ascii: "\r") && offset + 1 < bytes.count && bytes[offset + 1] == UInt8(ascii: "\n")
                offset += crlf ? 2 : 1
                position = SourcePosition(line: position.line + 1, asciiColumn: 0)
                continue
            }
            let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            offset += length
            position.utf8Column += length
            position.utf16Column += length == 4 ? 2 : 1
            position.scalarColumn += 1
        }
        return result
    }
}

/// Finds a snippet's quotable sentences in its file and picks the one that answers a question.
enum QuoteFinder {
    /// The longest sentence quoted, in characters.
    static let maximumLength = 240
    /// The most bytes of one entry searched for its sentences.
    static let maximumEntryBytes = 256 * 1024

    /// The quotable sentences of `snippet` in `file` (its file as read now): each line of its description and
    /// body (split into sentences when long) found in the entry's text, in order. A description line is quoted as
    /// the file has it; a body line is found as the file writes it (its snippet syntax, else its plain text) and
    /// quoted as what it shows (`QuotableSentence.shownText`), only where that is the body's plain text: a line that
    /// shows nothing (`$0`) or only a mirror of another line's text is not quoted. Never a sentence that reads as an
    /// instruction to an assistant. Empty when the file no longer holds the snippet.
    static func sentences(of snippet: Snippet, in file: QuoteFile) -> [QuotableSentence] {
        let range = snippet.location.range
        guard let entryRange = entryRange(of: snippet, in: file) else { return [] }
        let (start, end) = (entryRange.lowerBound, entryRange.upperBound)
        let entry = Array(file.bytes[start..<end])
        let plainBody = AskWords.plainText(ofBody: snippet.body)
        var found: [(field: QuoteField, text: String, range: Range<Int>)] = []
        func add(_ lines: [[String]], field: QuoteField, from cursor: Int) {
            var cursor = cursor
            for variants in lines {
                for variant in variants {
                    let pieces = pieces(of: variant)
                    guard !pieces.isEmpty else { continue }
                    var matched: [(shown: String, range: Range<Int>)] = []
                    var position = cursor
                    for piece in pieces {
                        guard let match = find(Array(piece.utf8), in: entry, from: position),
                            let shown = QuotableSentence.shownText(ofSource: piece, field: field, format: snippet.format),
                            field == .description || shown.isEmpty || plainBody.contains(shown)
                        else { break }
                        matched.append((shown, match))
                        position = match.upperBound
                    }
                    // Whether a piece reads as an instruction is asked only of pieces the file holds.
                    guard matched.count == pieces.count,
                        !pieces.contains(where: AskText.isInstruction), !matched.contains(where: { AskText.isInstruction($0.shown) })
                    else { continue }
                    for (shown, match) in matched where isQuotable(shown) {
                        found.append((field, shown, (start + match.lowerBound)..<(start + match.upperBound)))
                    }
                    cursor = position
                    break
                }
            }
        }
        if let description = snippet.description {
            let lines = description.split(separator: "\n", omittingEmptySubsequences: false).map { [String($0)] }
            add(lines, field: .description, from: find(Array("\"description\"".utf8), in: entry, from: 0)?.upperBound ?? 0)
        }
        // Each body line as its file writes it, snippet syntax and all (so its range covers its source), else as its
        // plain text (a format whose syntax is not LSP's, where the file holds that verbatim).
        let written = FormatRegistry.format(snippet.format).bodyQuoting.written
        let bodyLines = snippet.body.split(separator: "\n", omittingEmptySubsequences: false).map { line -> [String] in
            let raw = written(String(line))
            let plain = written(AskWords.plainText(ofBody: String(line)))
            return plain == raw ? [raw] : [raw, plain]
        }
        let bodyStart = find(Array("\"body\"".utf8), in: entry, from: 0)?.upperBound
            ?? entry.firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        add(bodyLines, field: .body, from: bodyStart)
        let positions = file.positions(
            of: found.flatMap { [$0.range.lowerBound, $0.range.upperBound] }, from: start, at: range.start)
        return found.enumerated().compactMap { number, sentence in
            guard let from = positions[sentence.range.lowerBound], let to = positions[sentence.range.upperBound] else { return nil }
            return QuotableSentence(
                index: number, field: sentence.field, text: sentence.text,
                location: SourceLocation(uri: snippet.location.uri, range: SourceRange(start: from, end: to)),
                fileUTF8Range: sentence.range)
        }
    }

    /// Whether `shown`, what a piece of a line shows, may be quoted: a letter or digit, and not too long.
    static func isQuotable(_ shown: String) -> Bool {
        shown.count <= maximumLength && shown.contains { $0.isLetter || $0.isNumber }
    }

    /// The UTF-8 offsets of `snippet`'s entry in `file`; nil when they are outside it, or the entry is larger than
    /// `maximumEntryBytes`.
    static func entryRange(of snippet: Snippet, in file: QuoteFile) -> Range<Int>? {
        let range = snippet.location.range
        guard let start = file.offset(of: range.start),
            let end = file.offset(of: range.end, from: start - range.start.utf8Column, fromLine: range.start.line),
            start < end, end - start <= maximumEntryBytes
        else { return nil }
        return start..<end
    }

    /// The pieces of one line to find in the file: the line trimmed, or its sentences when it is longer than
    /// `maximumLength`; pieces without a letter or digit, or too long even with their syntax, are left out (and,
    /// once found in the file, those that read as instructions or show nothing quotable).
    static func pieces(of line: String) -> [String] {
        let trimmed = line.trimmingWhitespace()
        guard !trimmed.isEmpty else { return [] }
        let pieces = trimmed.count <= maximumLength ? [trimmed] : AskText.sentences(in: trimmed)
        return pieces.filter { piece in
            piece.utf8.count <= 4 * maximumLength && piece.contains { $0.isLetter || $0.isNumber }
        }
    }

    /// The first occurrence of `needle` in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Range<Int>? {
        guard !needle.isEmpty, start >= 0, haystack.count - start >= needle.count else { return nil }
        let first = needle[0]
        var position = start
        while position + needle.count <= haystack.count {
            if haystack[position] == first && haystack[position..<(position + needle.count)].elementsEqual(needle) {
                return position..<(position + needle.count)
            }
            position += 1
        }
        return nil
    }

    /// The sentence that answers: the one holding the asked-for figure first (a number the question names, else
    /// any figure when the question asks how much, how many, a price or a rate), then the most weight of question
    /// words (`weights`, by stem), then of the other search words; the first of equals. When no sentence holds
    /// any of them, the body's first sentence (what "what is my postal address" asks for), else nil.
    static func choose(
        among sentences: [QuotableSentence], question: String, words: [QuestionWord], weights: [Double],
        searchStems: Set<String>
    ) -> QuotableSentence? {
        let numbers = words.map(\.word).filter { $0.contains(where: \.isASCIIDigit) }
        let asksFigure = !numbers.isEmpty || Self.asksForFigure(question)
        let wordWeight = weights.reduce(0, +) + 1
        var best: (sentence: QuotableSentence, score: Double)?
        for sentence in sentences {
            let stems = Set(AskWords.tokens(in: sentence.text).map(AskWords.stem))
            var score = 0.0
            if numbers.contains(where: { AskText.contains(number: $0, in: sentence.text) }) { score += 2 * wordWeight * 2 }
            if asksFigure && Self.holdsFigure(sentence.text) { score += wordWeight * 2 }
            var counted: Set<String> = []
            for (word, weight) in zip(words, weights) where word.isMatched(by: stems) {
                score += weight
                counted.insert(word.stem)
            }
            score += 0.01 * Double(searchStems.subtracting(counted).intersection(stems).count)
            guard score > 0 else { continue }
            if best == nil || score > best!.score { best = (sentence, score) }
        }
        return best?.sentence ?? sentences.first { $0.field == .body }
    }

    /// Whether `text` holds a figure a person could be asking for: a number that is not a tabstop (`$2`, `${2:reason}`,
    /// `${1|a,b|}`) and not a lone digit after the letters of a name (`P1`, `S3`, `v2`); `9am` and `5kg` are figures.
    static func holdsFigure(_ text: String) -> Bool {
        let characters = Array(text)
        for range in AskText.numberRanges(in: characters) {
            let before = range.lowerBound > 0 ? characters[range.lowerBound - 1] : " "
            let beforeThat = range.lowerBound > 1 ? characters[range.lowerBound - 2] : " "
            let after = range.upperBound < characters.count ? characters[range.upperBound] : " "
            if before == "$" || (before == "{" && beforeThat == "$") { continue }
            // A letter before a lone digit makes a name (P1, S3, v2); a unit after it does not (9am, 5kg).
            if range.count == 1 && before.isLetter && !after.isASCIIDigit { continue }
            return true
        }
        return false
    }

    /// Whether `question` asks for a figure: a measure question ("how much", "at what": `Lexicon.measureQuestions`),
    /// a currency sign or `%`, or a word for a price, a rate, an amount (`Lexicon.figureWords`).
    static func asksForFigure(_ question: String) -> Bool {
        let words = AskText.words(in: question)
        if zip(words, words.dropFirst()).contains(where: { Lexicon.measureQuestions.contains($0.0 + " " + $0.1) }) {
            return true
        }
        if question.contains(where: { $0 == "%" || QuestionFigure.currencySigns.contains($0) }) { return true }
        return words.contains { figureStems.contains(AskWords.stem($0)) }
    }

    /// The stems of `Lexicon.figureWords`: a question word counts by stem, so "prices" and "price" both do.
    static let figureStems: Set<String> = Set(Lexicon.figureWords.texts.map(AskWords.stem))
}
