import SnippetsCore

/// A snippet to add to a `.code-snippets` file.
public struct NewSnippet: Hashable, Sendable {
    /// The entry's key (the title completions and answers show).
    public var title: String
    /// The `prefix`.
    public var trigger: String
    /// The selection, as literal text (it is escaped for the snippet grammar when written).
    public var text: String
    /// The `scope` (a language id); nil for a global snippet.
    public var scope: String?
    /// The `description`, when there is one.
    public var description: String?

    public init(title: String, trigger: String, text: String, scope: String? = nil, description: String? = nil) {
        self.title = title
        self.trigger = trigger
        self.text = text
        self.scope = scope
        self.description = description
    }
}

/// Why a snippet could not be added to a file's text, in words for the user.
public enum SnippetFileEditError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file is not valid JSONC.
    case unreadable(reason: String)
    /// The file's top level is not an object.
    case notAnObject
    /// The file already has an entry with this title.
    case duplicateTitle(String)
    /// The file already has a snippet with this trigger.
    case duplicateTrigger(String)

    public var description: String {
        switch self {
        case .unreadable(let reason): "it is not a valid snippet file (\(reason)); fix it first, nothing was changed"
        case .notAnObject: "its top level is not a JSON object; nothing was changed"
        case .duplicateTitle(let title): "it already has a snippet titled \"\(title)\""
        case .duplicateTrigger(let trigger): "it already has a snippet with the trigger \"\(trigger)\""
        }
    }
}

/// Adds one snippet entry to the text of a `.code-snippets` file, changing nothing else.
///
/// **Invariant:** every byte of the original file is kept, in order: the new entry (and, when the last member has
/// no trailing comma, one `,` right after that member) is inserted before the top-level object's closing `}`.
/// Comments, formatting and key order stay as they were. Pure: bytes in, bytes out.
public enum SnippetFileEdit {
    /// The file's bytes with `snippet` added; `original` nil (a missing file) gives a new file with one entry.
    public static func adding(_ snippet: NewSnippet, to original: [UInt8]?) throws(SnippetFileEditError) -> [UInt8] {
        guard let original else {
            return Array(("{\n" + entry(snippet, indent: "\t") + "\n}\n").utf8)
        }
        let root: JSONCValue
        switch JSONC.parse(original) {
        case .success(let value): root = value
        case .failure(let error):
            let position = LineTable(String(decoding: original, as: UTF8.self)).position(ofUTF8Offset: error.offset)
            throw .unreadable(reason: "line \(position.line + 1): \(error.message)")
        }
        guard let members = root.members else { throw .notAnObject }
        if members.contains(where: { $0.key == snippet.title }) { throw .duplicateTitle(snippet.title) }
        if members.contains(where: { triggers(of: $0.value).contains(snippet.trigger) }) {
            throw .duplicateTrigger(snippet.trigger)
        }

        let close = root.range.upperBound - 1  // the top-level `}`
        var end = close  // one past the last byte that is not whitespace before `}`
        while end > root.range.lowerBound + 1, isWhitespace(original[end - 1]) { end -= 1 }
        let indent = members.first.map { indentation(before: $0.keyRange.lowerBound, in: original) } ?? "\t"

        // The file's own line breaks: a CRLF file gets CRLF lines.
        let newline = original.indices.dropLast().contains { original[$0] == 0x0D && original[$0 + 1] == 0x0A } ? "\r\n" : "\n"
        var inserted = newline + entry(snippet, indent: indent.isEmpty ? "\t" : indent, newline: newline)
        if !original[end..<close].contains(UInt8(ascii: "\n")) { inserted += newline }
        var result = original
        result.insert(contentsOf: Array(inserted.utf8), at: end)
        if let last = members.last, !hasComma(in: original, from: last.value.range.upperBound, to: close) {
            result.insert(UInt8(ascii: ","), at: last.value.range.upperBound)
        }
        return result
    }

    /// The triggers (`prefix`, a string or an array of strings) of an entry.
    static func triggers(of entry: JSONCValue) -> [String] {
        guard let prefix = entry.member("prefix")?.value else { return [] }
        if let single = prefix.stringValue { return [single] }
        if case .array(let values) = prefix.kind { return values.compactMap(\.stringValue) }
        return []
    }

    /// The JSON text of one entry, its first line at `indent`, its lines separated by `newline`.
    static func entry(_ snippet: NewSnippet, indent: String, newline: String = "\n") -> String {
        let inner = indent + indent
        var lines = [
            "\(indent)\(JSONStringLiteral.quoted(snippet.title)): {",
            "\(inner)\"prefix\": \(JSONStringLiteral.quoted(snippet.trigger)),",
        ]
        if let scope = snippet.scope, !scope.isEmpty { lines.append("\(inner)\"scope\": \(JSONStringLiteral.quoted(scope)),") }
        let bodyLines = bodyLines(of: snippet.text).map(JSONStringLiteral.quoted).joined(separator: ", ")
        var last = "\(inner)\"body\": [\(bodyLines)]"
        if let description = snippet.description, !description.isEmpty {
            lines.append(last + ",")
            last = "\(inner)\"description\": \(JSONStringLiteral.quoted(description))"
        }
        lines.append(last)
        lines.append("\(indent)}")
        return lines.joined(separator: newline)
    }

    /// The body array's lines: the text escaped for the snippet grammar (`\`, `$`, `}`), one string per line. No
    /// text (a snippet saved for a question, to be written later) is `$0`: an empty body would not load.
    static func bodyLines(of text: String) -> [String] {
        guard !text.isEmpty else { return ["$0"] }
        return SnippetBody.escaped(text).splitIntoLines()
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// The spaces and tabs between the start of the line and `offset`, when nothing else precedes it there.
    private static func indentation(before offset: Int, in bytes: [UInt8]) -> String {
        var start = offset
        while start > 0, bytes[start - 1] == 0x20 || bytes[start - 1] == 0x09 { start -= 1 }
        guard start == 0 || bytes[start - 1] == 0x0A || bytes[start - 1] == 0x0D else { return "\t" }
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    /// Whether a `,` stands between `start` and `end`, skipping whitespace and comments.
    private static func hasComma(in bytes: [UInt8], from start: Int, to end: Int) -> Bool {
        JSONC.commaOffset(in: bytes, from: start, to: end) != nil
    }
}

extension String {
    /// The lines of this text, split at `\n`, `\r\n` and `\r`.
    func splitIntoLines() -> [String] {
        var lines: [String] = []
        var current = ""
        var previousWasCR = false
        for scalar in unicodeScalars {
            if scalar == "\n" && previousWasCR {
                previousWasCR = false
                continue
            }
            previousWasCR = scalar == "\r"
            if scalar == "\n" || scalar == "\r" {
                lines.append(current)
                current = ""
            } else {
                current.unicodeScalars.append(scalar)
            }
        }
        lines.append(current)
        return lines
    }
}
