/// Why a learned-words file could not be changed, in words for the user.
public enum LearnedWordsEditError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file is not valid JSON(C) or not shaped as a learned-words file.
    case unreadable(reason: String)

    public var description: String {
        switch self {
        case .unreadable(let reason):
            "the learned-words file is not valid (\(reason)); fix it first, nothing was changed"
        }
    }
}

/// Changes the text of a learned-words file (`LearnedWords.fileName`) textually, like `SnippetFileEdit` does for
/// snippet files: only the array of the entry concerned is rewritten, a new entry or file is inserted before its
/// object's closing `}`, a forgotten one is cut out with its comma. Every other byte (comments, order, spacing,
/// hand-added words) stays. Pure: bytes in, bytes out.
public enum LearnedWordsFileEdit {
    /// The file with `words` added to the entry `title` of `file` (words it already has, by stem, are skipped),
    /// and `question`, when given, as a taught question after them (`LearnedWords.questionMark`; skipped when the
    /// entry has it). `original` nil (a missing file) gives a new file. Returns `original` unchanged when there is
    /// nothing to add.
    public static func adding(
        _ words: [String], question: String? = nil, file: String, title: String, to original: [UInt8]?
    ) throws(LearnedWordsEditError) -> [UInt8] {
        let taught = question.map { LearnedWords.questionMark + $0.trimmingWhitespace() }
        let words = words + (taught.map { [$0] } ?? [])
        guard let original, !original.allSatisfy(isWhitespace) else {
            guard !words.isEmpty else { return original ?? [] }
            return Array(("{\n\t\(quoted(file)): {\n\t\t\(quoted(title)): \(array(words))\n\t}\n}\n").utf8)
        }
        let root = try parsed(original)
        guard let fileMember = root.member(file) else {
            guard !words.isEmpty else { return original }
            let inner = "{" + "\n\t\t\(quoted(title)): \(array(words))\n\t}"
            return inserting(member: quoted(file) + ": " + inner, into: root, of: original)
        }
        guard let titleMember = fileMember.value.member(title) else {
            guard !words.isEmpty else { return original }
            return inserting(member: quoted(title) + ": " + array(words), into: fileMember.value, of: original)
        }
        guard case .array(let values) = titleMember.value.kind else { throw .unreadable(reason: "\"\(title)\" is not an array") }
        let existing = values.compactMap(\.stringValue)
        var seen = Set(existing.map(identity))
        var added: [String] = []
        for word in words where seen.insert(identity(word)).inserted { added.append(word) }
        guard !added.isEmpty else { return original }
        return replacing(titleMember.value.range, with: array(existing + added), in: original)
    }

    /// What makes two array entries the same: a word's stems, a taught question's `questionKey`.
    private static func identity(_ entry: String) -> String {
        if let question = LearnedWords.taughtQuestion(in: entry) { return "?" + LearnedWords.questionKey(question) }
        return LearnedWords.stems(of: entry).joined(separator: " ")
    }

    /// The file with words forgotten: for `file`/`title` (nil: every entry), the `words` whose stems match and the
    /// taught `questions` (nil words: every word and question, the whole entry). Entries and files left empty are
    /// removed. Also returns how many words and how many taught questions went.
    public static func forgetting(
        words: [String]?, questions: [String] = [], file: String?, title: String?, in original: [UInt8]
    ) throws(LearnedWordsEditError) -> (bytes: [UInt8], removedWords: Int, removedQuestions: Int) {
        var bytes = original
        var removed = 0
        var removedQuestions = 0
        let forgottenStems = words.map { Set($0.flatMap(LearnedWords.stems(of:))) }
        let forgottenQuestions = Set(questions.map(LearnedWords.questionKey))
        func isForgotten(_ entry: String) -> Bool {
            guard let forgottenStems else { return true }
            if let question = LearnedWords.taughtQuestion(in: entry) {
                return forgottenQuestions.contains(LearnedWords.questionKey(question))
            }
            return LearnedWords.stems(of: entry).contains(where: forgottenStems.contains)
        }
        // One change at a time, from fresh ranges, until nothing more matches.
        while true {
            let root = try parsed(bytes)
            guard let files = root.members else { throw .unreadable(reason: "the top level is not an object") }
            var changed = false
            search: for fileMember in files where file == nil || fileMember.key == file {
                guard let titles = fileMember.value.members else { continue }
                if titles.isEmpty, title == nil, words == nil {
                    bytes = removing(fileMember, from: root, in: bytes)
                    changed = true
                    break search
                }
                for titleMember in titles where title == nil || titleMember.key == title {
                    guard case .array(let values) = titleMember.value.kind else { continue }
                    let current = values.compactMap(\.stringValue)
                    let kept = current.filter { !isForgotten($0) }
                    guard kept.count < current.count || current.isEmpty else { continue }
                    let gone = current.filter(isForgotten)
                    removedQuestions += gone.filter { LearnedWords.taughtQuestion(in: $0) != nil }.count
                    removed += gone.filter { LearnedWords.taughtQuestion(in: $0) == nil }.count
                    if kept.isEmpty {
                        bytes = titles.count == 1
                            ? removing(fileMember, from: root, in: bytes)
                            : removing(titleMember, from: fileMember.value, in: bytes)
                    } else {
                        bytes = replacing(titleMember.value.range, with: array(kept), in: bytes)
                    }
                    changed = true
                    break search
                }
            }
            if !changed { return (bytes, removed, removedQuestions) }
        }
    }

    // MARK: - Text

    private static func parsed(_ bytes: [UInt8]) throws(LearnedWordsEditError) -> JSONCValue {
        switch JSONC.parse(bytes) {
        case .success(let value):
            guard value.members != nil else { throw .unreadable(reason: "the top level is not an object") }
            return value
        case .failure(let error):
            let position = LineTable(String(decoding: bytes, as: UTF8.self)).position(ofUTF8Offset: error.offset)
            throw .unreadable(reason: "line \(position.line + 1): \(error.message)")
        }
    }

    private static func quoted(_ text: String) -> String { JSONStringLiteral.quoted(text) }

    /// Words as a one-line JSON array: one entry's change is one line of a diff.
    private static func array(_ words: [String]) -> String {
        "[" + words.map(quoted).joined(separator: ", ") + "]"
    }

    private static func replacing(_ range: Range<Int>, with text: String, in bytes: [UInt8]) -> [UInt8] {
        var result = bytes
        result.replaceSubrange(range, with: Array(text.utf8))
        return result
    }

    /// `member` (`"key": value` text) inserted as the last member of `object`, on its own line, indented like the
    /// object's other members (or one level deeper than the object's line), with a comma after the one before.
    private static func inserting(member: String, into object: JSONCValue, of bytes: [UInt8]) -> [UInt8] {
        let members = object.members ?? []
        let close = object.range.upperBound - 1
        var end = close
        while end > object.range.lowerBound + 1, isWhitespace(bytes[end - 1]) { end -= 1 }
        let newline = bytes.indices.dropLast().contains { bytes[$0] == 0x0D && bytes[$0 + 1] == 0x0A } ? "\r\n" : "\n"
        let outer = indentation(ofLineAt: object.range.lowerBound, in: bytes)
        let indent = members.first.map { indentation(ofLineAt: $0.keyRange.lowerBound, in: bytes) } ?? outer + "\t"
        // A multi-line member (a new file object) is indented as a whole.
        let body = member.replacingTabIndents(base: indent, newline: newline)
        var inserted = newline + indent + body
        if !bytes[end..<close].contains(UInt8(ascii: "\n")) { inserted += newline + outer }
        var result = bytes
        result.insert(contentsOf: Array(inserted.utf8), at: end)
        if let last = members.last, !hasComma(in: bytes, from: last.value.range.upperBound, to: close) {
            result.insert(UInt8(ascii: ","), at: last.value.range.upperBound)
        }
        return result
    }

    /// The text without `member` of `object`: its line(s) when it stands alone on them, and one comma (the one
    /// after it, else the one before it).
    private static func removing(_ member: JSONCMember, from object: JSONCValue, in bytes: [UInt8]) -> [UInt8] {
        let members = object.members ?? []
        guard let position = members.firstIndex(where: { $0.keyRange == member.keyRange }) else { return bytes }
        var start = member.keyRange.lowerBound
        var end = member.value.range.upperBound
        let close = object.range.upperBound - 1
        if let comma = JSONC.commaOffset(in: bytes, from: end, to: position + 1 < members.count ? members[position + 1].keyRange.lowerBound : close) {
            end = comma + 1
        } else if position > 0, let comma = JSONC.commaOffset(in: bytes, from: members[position - 1].value.range.upperBound, to: start) {
            start = comma
        }
        // Take the whole line when the member had it to itself.
        var lineStart = start
        while lineStart > 0, bytes[lineStart - 1] == 0x20 || bytes[lineStart - 1] == 0x09 { lineStart -= 1 }
        var lineEnd = end
        while lineEnd < bytes.count, bytes[lineEnd] == 0x20 || bytes[lineEnd] == 0x09 { lineEnd += 1 }
        if (lineStart == 0 || bytes[lineStart - 1] == 0x0A) && lineEnd < bytes.count && (bytes[lineEnd] == 0x0A || bytes[lineEnd] == 0x0D) {
            start = lineStart
            end = lineEnd + (bytes[lineEnd] == 0x0D && lineEnd + 1 < bytes.count && bytes[lineEnd + 1] == 0x0A ? 2 : 1)
        }
        var result = bytes
        result.removeSubrange(start..<end)
        return result
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// The spaces and tabs at the start of the line holding `offset`.
    private static func indentation(ofLineAt offset: Int, in bytes: [UInt8]) -> String {
        var start = offset
        while start > 0, bytes[start - 1] != 0x0A { start -= 1 }
        var end = start
        while end < offset, bytes[end] == 0x20 || bytes[end] == 0x09 { end += 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private static func hasComma(in bytes: [UInt8], from start: Int, to end: Int) -> Bool {
        JSONC.commaOffset(in: bytes, from: start, to: end) != nil
    }
}

extension String {
    /// This text with each line after the first indented by `base` (its own leading tabs kept, one dropped: they
    /// were written relative to a top-level member), lines joined by `newline`.
    fileprivate func replacingTabIndents(base: String, newline: String) -> String {
        let lines = split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count > 1 else { return self }
        return lines.enumerated().map { offset, line in
            offset == 0 ? String(line) : base + String(line.dropFirst())
        }.joined(separator: newline)
    }
}
