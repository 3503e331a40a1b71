/// Converts a SnipMate body (as honza/vim-snippets writes them, SnipMate parser version 1) to LSP snippet syntax.
///
/// - `$N`, `${N}`, `${N:default}` and `${N/regex/format/flags}` stay as they are (LSP has the same forms); a
///   substitution without its last `/` (`${1/a/b}`, which vim-snipmate's `parser_subst` accepts) gets it.
/// - `${N|a|b|c}` (vim-snipmate's selection, offered in a popup menu with `a` inserted) becomes the choice
///   `${N|a,b,c|}`.
/// - `${VISUAL}`, `$VISUAL`, `${VISUAL:default}`, `${VISUAL/…/…/…}` become `$TM_SELECTED_TEXT` forms.
/// - A backslash escapes the next character, as in SnipMate (`\\begin` is `\begin`, `\$` is `$`), and before a
///   line break joins the two lines; a literal `$`, `}` or `\` is written escaped for LSP. Any other `$` (a shell
///   `$HOME`, a `${var}`, PHP's `$this`) is literal text: vim-snipmate drops such a `$`, which its authors never
///   mean (vim-snippets writes `$this` and `$.ajax` meaning the dollar).
/// - Backtick expressions are NEVER run. Each becomes what `SnipMateBacktick.replacement(for:)` says (an LSP
///   variable for the well-known date and file-name expressions, else nothing) and a `note` at its position.
struct SnipMateBodyConverter {
    /// One character of the body and the file offset it came from.
    struct Source {
        var scalars: [Unicode.Scalar] = []
        var offsets: [Int] = []
    }

    /// The converted body, where its parts came from, and the notes about backtick expressions.
    struct Result {
        var text: String
        var map: BodySourceMap
        /// (UTF-8 file offset, severity, code, message)
        var notes: [(offset: Int, severity: LibraryDiagnostic.Severity, code: DiagnosticCode, message: String)]
    }

    private let source: Source
    /// The converted body as UTF-8 (decoded once at the end: appending scalars to a String one by one is slow).
    private var output: [UInt8] = []
    private var outputUTF16 = 0
    private var map = BodySourceMap()
    private var notes: [(offset: Int, severity: LibraryDiagnostic.Severity, code: DiagnosticCode, message: String)] = []
    /// Open placeholders; each counts the literal `{` opened inside it so that their `}` stay literal.
    private var openPlaceholders: [Int] = []
    /// Each `$` vim-snipmate would drop (no number or `VISUAL` after it): its index in the body.
    private var droppedDollars: [Int] = []

    private init(source: Source) {
        self.source = source
    }

    /// Converts the body made of `lines`, each with the UTF-8 file offset where its content starts.
    static func convert(lines: [(text: Substring, offset: Int)]) -> Result {
        var source = Source()
        let capacity = lines.reduce(lines.count) { $0 + $1.text.utf8.count }
        source.scalars.reserveCapacity(capacity)
        source.offsets.reserveCapacity(capacity)
        for (index, line) in lines.enumerated() {
            var offset = line.offset
            for scalar in line.text.unicodeScalars {
                source.scalars.append(scalar)
                source.offsets.append(offset)
                offset += scalar.utf8.count
            }
            if index < lines.count - 1 {
                source.scalars.append("\n")
                source.offsets.append(offset)
            }
        }
        var converter = SnipMateBodyConverter(source: source)
        converter.output.reserveCapacity(capacity + capacity / 8)
        converter.run()
        converter.noteDroppedDollars()
        return Result(text: String(decoding: converter.output, as: UTF8.self), map: converter.map, notes: converter.notes)
    }

    /// The file offset right after the last verbatim text emitted: text continuing from there needs no new anchor.
    private var verbatimEnd = -1

    private mutating func emit(_ text: String, from offset: Int, verbatim: Bool) {
        map.append(.init(outputUTF16: outputUTF16, sourceUTF8: offset, isVerbatim: verbatim))
        output.append(contentsOf: text.utf8)
        outputUTF16 += text.utf16.count
        verbatimEnd = verbatim ? offset + text.utf8.count : -1
    }

    /// Emits one character copied from the file, extending the current verbatim stretch when it continues it.
    private mutating func emitVerbatim(_ scalar: Unicode.Scalar, from offset: Int) {
        if offset != verbatimEnd {
            map.append(.init(outputUTF16: outputUTF16, sourceUTF8: offset, isVerbatim: true))
        }
        Self.appendUTF8(scalar, to: &output)
        outputUTF16 += scalar.utf16.count
        verbatimEnd = offset + scalar.utf8.count
    }

    private mutating func emitLiteral(_ scalar: Unicode.Scalar, from offset: Int) {
        if scalar == "$" || scalar == "}" || scalar == "\\" {
            emit("\\" + String(scalar), from: offset, verbatim: false)
        } else {
            emitVerbatim(scalar, from: offset)
        }
    }

    private func scalar(at index: Int) -> Unicode.Scalar? {
        index < source.scalars.count ? source.scalars[index] : nil
    }

    private func isDigit(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        return ("0"..."9").contains(scalar)
    }

    private func isIdentifier(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        return isDigit(scalar) || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_"
    }

    private func matches(_ word: String, at index: Int) -> Bool {
        var position = index
        for scalar in word.unicodeScalars {
            guard self.scalar(at: position) == scalar else { return false }
            position += 1
        }
        return true
    }

    /// `/pat/sub/flags}` from the `/` at `slash`, read as vim-snipmate's `parser_subst` reads it (the pattern ends at
    /// a `/`, the replacement and the flags at a `/` or the `}`, the last `/` may be left out), as LSP text: each
    /// part as written, with all three slashes. Nil when it is not closed on its line.
    private func substitution(from slash: Int) -> (text: String, end: Int)? {
        var position = slash + 1
        func part(endsAtBrace: Bool) -> Range<Int>? {
            let start = position
            while let scalar = scalar(at: position), scalar != "\n" {
                if scalar == "/" || (endsAtBrace && scalar == "}") { return start..<position }
                position += scalar == "\\" ? 2 : 1
            }
            return nil
        }
        guard let pattern = part(endsAtBrace: false) else { return nil }
        position += 1
        guard let format = part(endsAtBrace: true) else { return nil }
        var flags = position..<position
        if scalar(at: position) == "/" {
            position += 1
            guard let written = part(endsAtBrace: true) else { return nil }
            flags = written
        }
        guard scalar(at: position) == "}" else { return nil }
        return ("/" + text(pattern) + "/" + text(format) + "/" + text(flags) + "}", position + 1)
    }

    /// `|a|b|c}` from the `|` at `bar`, vim-snipmate's selection (`parser_select`: items up to a `|` or the `}`, a
    /// backslash escaping the next character), as the LSP choice `|a,b,c|}`; an empty item is left out, as LSP has
    /// no empty option. Nil when it is not closed on its line or has no item.
    private func selection(from bar: Int) -> (text: String, end: Int)? {
        var items: [String] = []
        var item = String.UnicodeScalarView()
        var position = bar + 1
        while let scalar = scalar(at: position), scalar != "\n" {
            switch scalar {
            case "\\":
                guard let next = self.scalar(at: position + 1), next != "\n" else { return nil }
                item.append(next)
                position += 2
            case "|", "}":
                if !item.isEmpty { items.append(String(item)) }
                item = String.UnicodeScalarView()
                position += 1
                if scalar == "}" {
                    guard !items.isEmpty else { return nil }
                    return ("|" + items.map { SnippetLSPWriter.escapeChoiceOption($0) }.joined(separator: ",") + "|}", position)
                }
            default:
                item.append(scalar)
                position += 1
            }
        }
        return nil
    }

    /// The source text of `range`, made from its UTF-8 bytes (appending scalars to a string one by one is slow, and
    /// this runs for every tabstop of every SnipMate body).
    private func text(_ range: Range<Int>) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(range.count)
        for scalar in source.scalars[range] { Self.appendUTF8(scalar, to: &bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `scalar` as UTF-8, an ASCII scalar as its one byte without the encoder.
    private static func appendUTF8(_ scalar: Unicode.Scalar, to bytes: inout [UInt8]) {
        if scalar.isASCII {
            bytes.append(UInt8(truncatingIfNeeded: scalar.value))
        } else {
            UTF8.encode(scalar) { bytes.append($0) }
        }
    }

    private mutating func run() {
        var index = 0
        let count = source.scalars.count
        while index < count {
            let scalar = source.scalars[index]
            let offset = source.offsets[index]
            switch scalar {
            case "\\":
                if self.scalar(at: index + 1) == "\n" {
                    // vim-snipmate's `parser_string` joins a line ending in a backslash to the next.
                    index += 2
                } else if let next = self.scalar(at: index + 1) {
                    emitLiteral(next, from: offset)
                    index += 2
                } else {
                    emitLiteral("\\", from: offset)
                    index += 1
                }
            case "`":
                index = convertBacktick(at: index)
            case "$":
                index = convertDollar(at: index)
            case "{":
                if !openPlaceholders.isEmpty { openPlaceholders[openPlaceholders.count - 1] += 1 }
                emitVerbatim("{", from: offset)
                index += 1
            case "}":
                if let literalBraces = openPlaceholders.last {
                    if literalBraces > 0 {
                        openPlaceholders[openPlaceholders.count - 1] -= 1
                        emit("\\}", from: offset, verbatim: false)
                    } else {
                        openPlaceholders.removeLast()
                        emitVerbatim("}", from: offset)
                    }
                } else {
                    emitVerbatim("}", from: offset)
                }
                index += 1
            default:
                emitVerbatim(scalar, from: offset)
                index += 1
            }
        }
    }

    private mutating func convertBacktick(at index: Int) -> Int {
        let offset = source.offsets[index]
        var end = index + 1
        // A backslash inside the expression escapes the next character (SnipMate writes \` for a literal backtick).
        while end < source.scalars.count, source.scalars[end] != "`" {
            end += source.scalars[end] == "\\" ? 2 : 1
        }
        end = min(end, source.scalars.count)
        guard end < source.scalars.count else {
            notes.append(
                (offset, .warning, .unterminatedBacktick,
                 "a backtick expression is never closed; the rest of the body is kept as text"))
            for position in index..<source.scalars.count {
                emitLiteral(source.scalars[position], from: source.offsets[position])
            }
            return source.scalars.count
        }
        let expression = text((index + 1)..<end)
        let replacement = SnipMateBacktick.replacement(for: expression)
        emit(replacement.text, from: offset, verbatim: false)
        let outcome = replacement.text.isEmpty ? "it was left out" : "it was replaced by \(replacement.text)"
        notes.append(
            (offset, .note, .backtickExpression,
             "backtick expression `\(expression)` is not run (snippets-lsp never runs Vim script); \(outcome)"))
        return end + 1
    }

    private mutating func convertDollar(at index: Int) -> Int {
        let offset = source.offsets[index]
        let next = scalar(at: index + 1)
        if isDigit(next) {
            var end = index + 1
            while isDigit(scalar(at: end)) { end += 1 }
            emit(text(index..<end), from: offset, verbatim: true)
            return end
        }
        if matches("VISUAL", at: index + 1), !isIdentifier(scalar(at: index + 7)) {
            emit("$TM_SELECTED_TEXT", from: offset, verbatim: false)
            return index + 7
        }
        if next == "{" {
            var nameEnd = index + 2
            let isNumber = isDigit(scalar(at: nameEnd))
            if isNumber {
                while isDigit(scalar(at: nameEnd)) { nameEnd += 1 }
            } else if matches("VISUAL", at: nameEnd) {
                nameEnd += 6
            }
            if nameEnd > index + 2 {
                let name = isNumber ? text((index + 2)..<nameEnd) : "TM_SELECTED_TEXT"
                switch scalar(at: nameEnd) {
                case "}":
                    emit("${\(name)}", from: offset, verbatim: isNumber)
                    return nameEnd + 1
                case ":":
                    emit("${\(name):", from: offset, verbatim: isNumber)
                    openPlaceholders.append(0)
                    return nameEnd + 1
                case "/":
                    if let substitution = substitution(from: nameEnd) {
                        emit("${\(name)" + substitution.text, from: offset, verbatim: false)
                        return substitution.end
                    }
                case "|" where isNumber:
                    if let selection = selection(from: nameEnd) {
                        emit("${\(name)" + selection.text, from: offset, verbatim: false)
                        return selection.end
                    }
                default:
                    break
                }
            }
        }
        if !isDigit(next), !(next == "{" && (isDigit(scalar(at: index + 2)) || matches("VISUAL", at: index + 2))) {
            droppedDollars.append(index)
        }
        emit("\\$", from: offset, verbatim: false)
        return index + 1
    }

    /// One note per body where vim-snipmate's `parser_var` would drop a `$` (and a `{` after it) that starts no
    /// tabstop: the server keeps the author's text, which in vim-snippets always means the dollar (`$this`).
    private mutating func noteDroppedDollars() {
        guard let first = droppedDollars.first else { return }
        let dropped = scalar(at: first + 1) == "{" ? 2 : 1
        var end = first + dropped
        while isIdentifier(scalar(at: end)), end - first < 24 { end += 1 }
        // Without a name after it, the next character shows what is left (`$.ajax`, `$(`), unless it starts more.
        if end == first + dropped, let next = scalar(at: end), !["$", "{", "`", "\\", "\n"].contains(next) { end += 1 }
        let written = text(first..<end)
        let left = text((first + dropped)..<end)
        let others = droppedDollars.count > 1 ? " (\(droppedDollars.count) in this body)" : ""
        notes.append(
            (source.offsets[first], .note, .snipmateDollar,
             "vim-snipmate leaves out a '$' that no tabstop number or VISUAL follows, so '\(written)' inserts "
                + (left.isEmpty ? "nothing" : "'\(left)'") + " there\(others); it is kept as written here, as the "
                + "author means the dollar; write '\\$' and both insert it"))
    }
}

/// What backtick expressions become. snippets-lsp never runs them (they are Vim script, and a snippet library is
/// data): the well-known ones map to LSP variables the editor fills in, everything else is left out.
///
/// | expression (an optional `!v ` prefix is ignored) | becomes |
/// |---|---|
/// | `strftime("…")` with `%Y %y %m %d %B %b %h %A %a %H %M %S %s %F %T %%` | `${CURRENT_YEAR}` … (other directives: left out) |
/// | `Filename()`, `vim_snippets#Filename()`, `expand('%:t:r')`, `fnamemodify(bufname('%'),':t:r')` | `${TM_FILENAME_BASE}` |
/// | `Filename('', 'default')` | `${TM_FILENAME_BASE:default}` |
/// | `Filename('$1_foo', …)` | `${TM_FILENAME_BASE}_foo` |
/// | `expand('%:t')` / `expand('%:p')` / `expand('%:p:h')`, `expand('%:h')` / `expand('%')` | `${TM_FILENAME}` / `${TM_FILEPATH}` / `${TM_DIRECTORY}` / `${RELATIVE_FILEPATH}` |
/// | `@+`, `@*`, `@"` (registers) | `${CLIPBOARD}` |
/// | `&enc[:2] == "utf" ? "©" : "(c)"` | `©` |
/// | anything else (`g:snips_author`, `substitute(…)`, …) | nothing: left out |
public enum SnipMateBacktick {
    /// The LSP snippet text that stands in for `expression` (empty: left out).
    public static func replacement(for expression: String) -> (text: String, isKnown: Bool) {
        var trimmed = Substring(expression).trimmingSpaces()
        if trimmed.hasPrefix("!v") { trimmed = Substring(trimmed.dropFirst(2)).trimmingSpaces() }
        let compact = withoutSpacesOutsideQuotes(trimmed).replacingDoubleQuotes()
        if let text = fixed[compact] { return (text, true) }
        if let text = strftime(compact) { return (text, true) }
        if let text = filename(compact) { return (text, true) }
        return ("", false)
    }

    /// The expression without the spaces between its tokens (quoted text keeps its spaces), so the table can
    /// list each expression once however it is spaced. UltiSnips' interpolations are compacted the same way.
    static func withoutSpacesOutsideQuotes(_ expression: String) -> String {
        var result = ""
        var quote: Character?
        for character in expression {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == " " || character == "\t" {
                continue
            }
            result.append(character)
        }
        return result
    }

    private static let fixed: [String: String] = [
        "expand('%:t:r')": "${TM_FILENAME_BASE}",
        "expand('%:r:t')": "${TM_FILENAME_BASE}",
        "fnamemodify(bufname('%'),':t:r')": "${TM_FILENAME_BASE}",
        "fnamemodify(expand('%'),':t:r')": "${TM_FILENAME_BASE}",
        "expand('%:t')": "${TM_FILENAME}",
        "expand('%:p')": "${TM_FILEPATH}",
        "expand('%:p:h')": "${TM_DIRECTORY}",
        "expand('%:h')": "${TM_DIRECTORY}",
        "expand('%')": "${RELATIVE_FILEPATH}",
        "@+": "${CLIPBOARD}",
        "@*": "${CLIPBOARD}",
        "@'": "${CLIPBOARD}",
        "&enc[:2]=='utf'?'©':'(c)'": "©",
    ]

    private static let dateVariables: [Character: String] = [
        "Y": "CURRENT_YEAR", "y": "CURRENT_YEAR_SHORT", "m": "CURRENT_MONTH", "d": "CURRENT_DATE",
        "B": "CURRENT_MONTH_NAME", "b": "CURRENT_MONTH_NAME_SHORT", "h": "CURRENT_MONTH_NAME_SHORT",
        "A": "CURRENT_DAY_NAME", "a": "CURRENT_DAY_NAME_SHORT", "H": "CURRENT_HOUR", "M": "CURRENT_MINUTE",
        "S": "CURRENT_SECOND", "s": "CURRENT_SECONDS_UNIX",
    ]

    /// `strftime('FORMAT')` with only directives LSP variables can express.
    private static func strftime(_ compact: String) -> String? {
        guard compact.hasPrefix("strftime('"), compact.hasSuffix("')") else { return nil }
        let format = compact.dropFirst("strftime('".count).dropLast(2)
        guard !format.contains("'") else { return nil }
        return dateText(strftime: format)
    }

    /// LSP text for a `strftime` format (Vim's `strftime`, Emacs's `format-time-string`: the same directives), or
    /// nil when it uses a directive no date variable expresses.
    static func dateText(strftime format: Substring) -> String? {
        var result = ""
        var iterator = format.makeIterator()
        while let character = iterator.next() {
            guard character == "%" else {
                result += SnippetBody.escaped(String(character))
                continue
            }
            guard let directive = iterator.next() else { return nil }
            switch directive {
            case "%": result += "%"
            case "F": result += "${CURRENT_YEAR}-${CURRENT_MONTH}-${CURRENT_DATE}"
            case "T": result += "${CURRENT_HOUR}:${CURRENT_MINUTE}:${CURRENT_SECOND}"
            default:
                guard let name = dateVariables[directive] else { return nil }
                result += "${\(name)}"
            }
        }
        return result
    }

    /// SnipMate's `Filename([pattern [, default]])`: the file name without extension, `$1` in the pattern standing
    /// for it.
    private static func filename(_ compact: String) -> String? {
        var rest = Substring(compact)
        if rest.hasPrefix("vim_snippets#") { rest = rest.dropFirst("vim_snippets#".count) }
        guard rest.hasPrefix("Filename("), rest.hasSuffix(")") else { return nil }
        let arguments = rest.dropFirst("Filename(".count).dropLast()
        var strings: [String] = []
        var remaining = arguments
        while !remaining.isEmpty {
            guard remaining.first == "'", let close = remaining.dropFirst().firstIndex(of: "'") else { return nil }
            strings.append(String(remaining[remaining.index(after: remaining.startIndex)..<close]))
            remaining = remaining[remaining.index(after: close)...]
            if remaining.first == "," { remaining = remaining.dropFirst() } else if !remaining.isEmpty { return nil }
        }
        guard strings.count <= 2 else { return nil }
        let pattern = strings.first ?? ""
        if pattern.isEmpty {
            if strings.count == 2, !strings[1].isEmpty {
                return "${TM_FILENAME_BASE:\(SnippetBody.escaped(strings[1]))}"
            }
            return "${TM_FILENAME_BASE}"
        }
        return pattern.split(separator: "$1", omittingEmptySubsequences: false).map { SnippetBody.escaped(String($0)) }.joined(separator: "${TM_FILENAME_BASE}")
    }
}

extension String {
    /// The text with `"` read as `'`, so a table can list Vim expressions once whichever quotes they use.
    func replacingDoubleQuotes() -> String {
        String(map { $0 == "\"" ? "'" : $0 })
    }
}
