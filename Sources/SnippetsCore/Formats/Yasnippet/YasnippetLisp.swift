/// What yasnippet's Emacs Lisp becomes. snippets-lsp NEVER evaluates it (a snippet library is data): the table below
/// names the expressions whose meaning an LSP construct has exactly, and everything else is left out (the reader
/// notes each one). Expressions are compared with their white space normalized.
///
/// | Lisp | becomes |
/// |---|---|
/// | `` `yas-selected-text` ``, `(yas-selected-text)`, `yas/selected-text` | `${TM_SELECTED_TEXT}` |
/// | `(buffer-file-name)`, `buffer-file-name`, `(or (buffer-file-name) (buffer-name))` (FILE below) | `${TM_FILEPATH}` |
/// | `(file-name-nondirectory FILE)` | `${TM_FILENAME}` |
/// | `(file-name-base)`, `(file-name-base FILE)`, `(file-name-sans-extension (file-name-nondirectory FILE))`, `(file-name-nondirectory (file-name-sans-extension FILE))` | `${TM_FILENAME_BASE}` |
/// | `(file-name-directory FILE)` (Emacs keeps the final slash) | `${TM_DIRECTORY}/` |
/// | `(format-time-string "FORMAT")` with `%Y %y %m %d %B %b %h %A %a %H %M %S %s %F %T %%` | `${CURRENT_YEAR}` … |
/// | `(current-kill 0)` (the latest kill, the clipboard's text) | `${CLIPBOARD}` |
/// | a string literal, `"TODO: "` | its text |
/// | a mirror's `yas-text`, `(yas-text)` | the mirror `$N` |
/// | a mirror's `(upcase yas-text)`, `(downcase yas-text)` | `${N/(.*)/${1:/upcase}/s}`, `…/downcase…` |
/// | a field's `$$(yas-choose-value '("a" "b"))`, `(yas-choose-value "a" "b")`, in `(yas-auto-next …)` too | the choice `${N\|a,b\|}` |
///
/// Not mapped, because the meaning differs: `capitalize` (Emacs capitalizes every word, LSP's `/capitalize` the
/// first letter), `comment-start` (the mode's comment opener, which is not LSP's `LINE_COMMENT` in C), `(buffer-name)`
/// alone (a buffer's name, `<2>` suffixes and all).
enum YasnippetLisp {
    /// The LSP text standing in for a backquoted expression, or nil when it is left out.
    static func backquote(_ expression: String) -> String? {
        let compact = normalized(expression)
        if let text = fixed[compact] { return text }
        // A string literal is its own value.
        if compact.first == "\"", let strings = stringLiterals(Substring(compact)), strings.count == 1 {
            return SnippetBody.escaped(strings[0])
        }
        if let text = formatTime(compact) { return text }
        return nil
    }

    /// The LSP text for a mirror of field `number` whose transformation is `expression`, or nil when it is left out.
    static func mirror(_ expression: String, field number: Int) -> String? {
        switch normalized(expression) {
        case "yas-text", "(yas-text)": "$\(number)"
        case "(upcase yas-text)", "(upcase (yas-text))": "${\(number)/(.*)/${1:/upcase}/s}"
        case "(downcase yas-text)", "(downcase (yas-text))": "${\(number)/(.*)/${1:/downcase}/s}"
        default: nil
        }
    }

    /// The options of a field transformation that asks the user to choose (`yas-choose-value`), or nil.
    static func choiceOptions(_ expression: String) -> [String]? {
        var compact = Substring(normalized(expression))
        if compact.hasPrefix("(yas-auto-next "), compact.hasSuffix(")") {
            compact = compact.dropFirst("(yas-auto-next ".count).dropLast()
        }
        var rest: Substring
        if compact.hasPrefix("(yas-choose-value ") {
            rest = compact.dropFirst("(yas-choose-value ".count)
        } else if compact.hasPrefix("(yas/choose-value ") {
            rest = compact.dropFirst("(yas/choose-value ".count)
        } else {
            return nil
        }
        guard rest.hasSuffix(")") else { return nil }
        rest = rest.dropLast()
        if rest.hasPrefix("'(") || rest.hasPrefix("(list ") {
            guard rest.hasSuffix(")") else { return nil }
            rest = rest.hasPrefix("'(") ? rest.dropFirst(2).dropLast() : rest.dropFirst(6).dropLast()
        }
        guard let options = stringLiterals(rest), !options.isEmpty else { return nil }
        return options
    }

    /// The strings of a run of Lisp string literals separated by white space, or nil when anything else is there.
    private static func stringLiterals(_ text: Substring) -> [String]? {
        var options: [String] = []
        var iterator = text.makeIterator()
        while let character = iterator.next() {
            if character == " " { continue }
            guard character == "\"" else { return nil }
            var value = ""
            var closed = false
            while let next = iterator.next() {
                if next == "\\" {
                    guard let escaped = iterator.next() else { return nil }
                    switch escaped {
                    case "n": value.append("\n")
                    case "t": value.append("\t")
                    case "\\", "\"": value.append(escaped)
                    default: return nil
                    }
                } else if next == "\"" {
                    closed = true
                    break
                } else {
                    value.append(next)
                }
            }
            guard closed else { return nil }
            options.append(value)
        }
        return options
    }

    /// The expression with runs of white space made one space and none just inside parentheses, so that the table
    /// lists each expression once however it is laid out. Text inside string literals is kept.
    static func normalized(_ expression: String) -> String {
        var result = ""
        var inString = false
        var escaped = false
        var pendingSpace = false
        for character in expression {
            if inString {
                result.append(character)
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
                continue
            }
            if character.isWhitespace {
                pendingSpace = true
                continue
            }
            if pendingSpace, !result.isEmpty, result.last != "(", result.last != "'", character != ")" {
                result.append(" ")
            }
            pendingSpace = false
            result.append(character)
            if character == "\"" { inString = true }
        }
        return result
    }

    /// The ways a snippet names the visited file's path.
    private static let fileForms = [
        "(buffer-file-name)", "buffer-file-name", "(or (buffer-file-name) (buffer-name))",
        "(or buffer-file-name (buffer-name))", "(buffer-file-name (current-buffer))",
    ]

    private static let fixed: [String: String] = {
        var table: [String: String] = [
            "yas-selected-text": "${TM_SELECTED_TEXT}",
            "(yas-selected-text)": "${TM_SELECTED_TEXT}",
            "yas/selected-text": "${TM_SELECTED_TEXT}",
            "(file-name-base)": "${TM_FILENAME_BASE}",
            "(current-kill 0)": "${CLIPBOARD}",
        ]
        for file in fileForms {
            table[file] = "${TM_FILEPATH}"
            table["(file-name-nondirectory \(file))"] = "${TM_FILENAME}"
            table["(file-name-base \(file))"] = "${TM_FILENAME_BASE}"
            table["(file-name-sans-extension (file-name-nondirectory \(file)))"] = "${TM_FILENAME_BASE}"
            table["(file-name-nondirectory (file-name-sans-extension \(file)))"] = "${TM_FILENAME_BASE}"
            table["(file-name-directory \(file))"] = "${TM_DIRECTORY}/"
        }
        return table
    }()

    /// `(format-time-string "FORMAT")` with only directives LSP's date variables express.
    private static func formatTime(_ compact: String) -> String? {
        guard compact.hasPrefix("(format-time-string \""), compact.hasSuffix("\")") else { return nil }
        let format = compact.dropFirst("(format-time-string \"".count).dropLast(2)
        guard !format.contains("\"") && !format.contains("\\") else { return nil }
        return SnipMateBacktick.dateText(strftime: format)
    }
}
