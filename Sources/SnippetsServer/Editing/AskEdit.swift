import SnippetsCore

/// Asking from a document without a custom request (Helix): a question written on a marker line (`?? how do I …`)
/// or selected, and the plain-text edit that replaces it with the best cited snippet.
public struct AskTarget: Hashable, Sendable {
    /// The question, trimmed.
    public var question: String
    /// What the answer's snippet replaces: the marker line's content after its indentation, or the selection.
    public var range: LSPRange
    /// The indentation of the first line, given to every later line of the inserted snippet.
    public var indentation: String

    /// Selections shorter than this (trimmed) are not questions (Helix always has a one-character selection).
    static let shortestSelectedQuestion = 3

    /// The question at `range` in `document`: a marker line (the range within one line that starts with `marker`
    /// after its indentation) wins; otherwise a selection of at least three characters; otherwise nil.
    public static func find(
        in document: TextDocument, range: LSPRange, marker: String, encoding: PositionEncoding
    ) -> AskTarget? {
        let table = LineTable(document.text)
        guard range.start.line < table.lineCount else { return nil }
        let line = range.start.line
        let content = table.content(ofLine: line)
        let indentation = String(content.prefix { $0 == " " || $0 == "\t" })
        let afterIndent = content.dropFirst(indentation.count)
        if range.end.line <= line + (range.end.character == 0 ? 1 : 0), afterIndent.hasPrefix(marker) {
            let question = afterIndent.dropFirst(marker.count).trimmingWhitespace()
            guard !question.isEmpty, isAskable(question) else { return nil }
            let start = table.lineStarts[line] + indentation.utf8.count
            return AskTarget(
                question: question,
                range: LSPRange(
                    start: table.lspPosition(ofUTF8Offset: start, in: encoding),
                    end: table.lspPosition(ofUTF8Offset: table.contentEnd(ofLine: line), in: encoding)),
                indentation: indentation)
        }
        let selected = selectedText(in: table, range: range, encoding: encoding).trimmingWhitespace()
        guard selected.count >= shortestSelectedQuestion, isAskable(selected) else { return nil }
        return AskTarget(question: selected, range: range, indentation: indentation)
    }

    /// Whether `question` fits `snippets/ask` (a longer selection is code to save, not a question to ask).
    static func isAskable(_ question: String) -> Bool {
        question.unicodeScalars.count <= AskRequest.questionLength.upperBound
    }

    /// The text `range` covers.
    static func selectedText(in table: LineTable, range: LSPRange, encoding: PositionEncoding) -> String {
        let start = table.utf8Offset(of: range.start, in: encoding)
        let end = max(start, table.utf8Offset(of: range.end, in: encoding))
        return String(table.slice(start..<end))
    }

    /// `text` with every line after the first indented like the first.
    public func indenting(_ text: String) -> String {
        guard !indentation.isEmpty else { return text }
        let lines = text.splitIntoLines()
        return ([lines[0]] + lines.dropFirst().map { $0.isEmpty ? $0 : indentation + $0 }).joined(separator: "\n")
    }
}

/// Renders a library snippet for a place in a document.
enum SnippetRendering {
    /// The variables the server can compute at `position` in `document` (nil document: only date and random).
    static func variables(
        document: TextDocument?, position: Position?, context: RequestContext
    ) -> SnippetVariableContext {
        guard let document else {
            return SnippetVariableContext(workspaceFolders: context.workspaceFolders, date: context.configuration.now())
        }
        let table = LineTable(document.text)
        let offset = position.map { table.utf8Offset(of: $0, in: context.positionEncoding) } ?? 0
        let place = table.position(ofUTF8Offset: offset)
        return SnippetVariableContext(
            filePath: DocumentURI(document.uri).filePath,
            workspaceFolders: context.workspaceFolders, lineText: String(table.content(ofLine: place.line)),
            lineIndex: place.line, cursorUTF16Column: place.utf16Column, languageID: document.languageID,
            date: context.configuration.now())
    }
}

extension StringProtocol {
    /// Without leading and trailing whitespace and line breaks.
    func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else {
            return ""
        }
        return String(self[first...last])
    }
}
