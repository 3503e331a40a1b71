/// Where a quoted sentence sits in its snippet.
public enum QuoteField: String, Hashable, Sendable, Codable, CaseIterable {
    case description
    case body
}

/// A sentence of a snippet that an answer may quote: exactly the text of its file at `location`, so an editor can
/// highlight it. A snippet's quotable sentences are numbered in order (`index`: description first, then body),
/// the same numbers for the same file, so a per-question schema can offer them as a choice.
public struct QuotableSentence: Hashable, Sendable {
    public var index: Int
    public var field: QuoteField
    /// The sentence as written in the file (a body line as written, snippet syntax included where its plain text
    /// is not in the file verbatim).
    public var text: String
    /// Its range in the snippet's file, in every position encoding.
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
}

/// Reads snippet files for quoting: the core does no I/O of its own.
public protocol SnippetSources: Sendable {
    /// The current text of the snippet file at `uri`; nil when it cannot be read.
    func text(ofFileAt uri: String) -> String?
}

/// `SnippetSources` through a `LibraryFileSystem`, refusing files over the loader's size limit.
public struct FileSystemSnippetSources: SnippetSources {
    public let fileSystem: any LibraryFileSystem
    public let maximumSize: Int

    public init(fileSystem: any LibraryFileSystem, maximumSize: Int = LibraryLoader.defaultMaximumFileSize) {
        self.fileSystem = fileSystem
        self.maximumSize = maximumSize
    }

    public func text(ofFileAt uri: String) -> String? {
        guard uri.hasPrefix("file://"), let bytes = try? fileSystem.contents(of: LibraryPath.path(fromFileURI: uri), maximumSize: maximumSize)
        else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// A snippet file as read for one ask, with the sentences of each snippet it holds that may be quoted.
struct QuoteFile: Sendable {
    let table: LineTable

    /// The text of the file at `range`, or nil when the range is outside it.
    func text(at range: Range<Int>) -> String? {
        guard range.lowerBound >= 0, range.upperBound <= table.text.utf8.count else { return nil }
        return String(table.slice(range))
    }
}

/// Finds a snippet's quotable sentences in its file and picks the one that answers a question.
enum QuoteFinder {
    /// The longest sentence quoted, in characters.
    static let maximumLength = 240
    /// The most bytes of one entry searched for its sentences.
    static let maximumEntryBytes = 256 * 1024

    /// The quotable sentences of `snippet` in `file` (its file as read now): each line of its description and
    /// body (split into sentences when long) that occurs in the entry's text exactly as written, in order;
    /// never a sentence that reads as an instruction to an assistant. Empty when the file no longer holds it.
    static func sentences(of snippet: Snippet, in file: QuoteFile) -> [QuotableSentence] {
        let table = file.table
        let range = snippet.location.range
        let start = table.utf8Offset(line: range.start.line, column: range.start.utf8Column, in: .utf8)
        let end = table.utf8Offset(line: range.end.line, column: range.end.utf8Column, in: .utf8)
        guard start < end, end - start <= maximumEntryBytes else { return [] }
        let entry = Array(table.slice(start..<end).utf8)
        var result: [QuotableSentence] = []
        func add(_ lines: [[String]], field: QuoteField, from cursor: Int) {
            var cursor = cursor
            for variants in lines {
                for variant in variants {
                    let pieces = pieces(of: variant)
                    guard !pieces.isEmpty else { continue }
                    var found: [(String, Range<Int>)] = []
                    var position = cursor
                    for piece in pieces {
                        guard let match = find(Array(piece.utf8), in: entry, from: position) else { break }
                        found.append((piece, match))
                        position = match.upperBound
                    }
                    guard found.count == pieces.count else { continue }
                    for (piece, match) in found {
                        let fileRange = (start + match.lowerBound)..<(start + match.upperBound)
                        result.append(
                            QuotableSentence(
                                index: result.count, field: field, text: piece,
                                location: SourceLocation(
                                    uri: snippet.location.uri,
                                    range: SourceRange(
                                        start: table.position(ofUTF8Offset: fileRange.lowerBound),
                                        end: table.position(ofUTF8Offset: fileRange.upperBound))),
                                fileUTF8Range: fileRange))
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
        // The body's lines as their plain text where the file holds that, else as written (with snippet syntax).
        let bodyLines = snippet.body.split(separator: "\n", omittingEmptySubsequences: false).map { line -> [String] in
            let raw = String(line)
            let plain = AskWords.plainText(ofBody: raw)
            return plain == raw ? [raw] : [plain, raw]
        }
        let bodyStart = find(Array("\"body\"".utf8), in: entry, from: 0)?.upperBound
            ?? entry.firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        add(bodyLines, field: .body, from: bodyStart)
        return result
    }

    /// The quotable pieces of one line: the line trimmed, or its sentences when it is longer than
    /// `maximumLength`; pieces without a letter or digit, too long, or reading as instructions are left out.
    static func pieces(of line: String) -> [String] {
        let trimmed = line.trimmingWhitespace()
        guard !trimmed.isEmpty else { return [] }
        let pieces = trimmed.count <= maximumLength ? [trimmed] : AskText.sentences(in: trimmed)
        return pieces.filter { piece in
            piece.count <= maximumLength && piece.contains { $0.isLetter || $0.isNumber } && !AskText.isInstruction(piece)
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
            if asksFigure && sentence.text.contains(where: \.isASCIIDigit) { score += wordWeight * 2 }
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

    /// Whether `question` asks for a figure: how much, how many, or a word for a price, a rate, an amount.
    static func asksForFigure(_ question: String) -> Bool {
        let words = AskText.words(in: question)
        if zip(words, words.dropFirst()).contains(where: { $0.0 == "how" && ($0.1 == "much" || $0.1 == "many" || $0.1 == "long") }) {
            return true
        }
        if question.contains(where: { "%€$£¥".contains($0) }) { return true }
        return words.contains { figureWords.contains(AskWords.stem($0)) }
    }

    static let figureWords: Set<String> = Set(
        ["price", "prices", "cost", "costs", "rate", "rates", "fee", "fees", "charge", "amount", "total", "percent",
         "percentage", "number", "sum", "budget", "salary", "discount", "deposit", "tax", "vat", "hours", "days",
         "minimum", "maximum", "limit", "deadline", "when", "date"].map(AskWords.stem))
}
