/// What UltiSnips interpolation becomes. It is NEVER run (Python, Vim script and shell code from a library file is
/// data): the well-known forms become the LSP variable or mirror that says the same, everything else is left out.
///
/// | interpolation | becomes |
/// |---|---|
/// | `` `!p snip.rv = snip.basename` `` | `${TM_FILENAME_BASE}` |
/// | `` `!p snip.rv = snip.basename or "x"` `` | `${TM_FILENAME_BASE:x}` |
/// | `` `!p snip.rv = snip.fn` `` (or `fn`) | `${TM_FILENAME}` |
/// | `` `!p snip.rv = path` `` | `${TM_FILEPATH}` |
/// | `` `!p snip.rv = t[1]` `` | `$1` (a mirror) |
/// | `` `!p snip.rv = t[1].upper()` `` / `.lower()` | `${1/(.*)/${1:/upcase}/s}` / `downcase` |
/// | `` `!p snip.rv = t[1] + ".h"` `` (fields and quoted text joined by `+`) | `${1}.h` |
/// | `` `!p snip.rv = snip.v.text` `` | `${TM_SELECTED_TEXT}` |
/// | `` `!v …` `` | as SnipMate's backticks (`SnipMateBacktick`): `strftime`, `expand('%…')`, registers |
/// | `` `date +FORMAT` `` (shell) | the `strftime` date variables for FORMAT |
/// | anything else | nothing: left out |
enum UltiSnipsInterpolation {
    enum Language: String {
        case python = "Python"
        case vim = "Vim script"
        case shell = "shell"
    }

    /// The LSP snippet text standing in for `code` (empty: left out).
    static func replacement(for code: String, in language: Language) -> String {
        switch language {
        case .vim: return SnipMateBacktick.replacement(for: code).text
        case .shell: return shell(code)
        case .python: return python(code)
        }
    }

    private static func python(_ code: String) -> String {
        // One statement `snip.rv = EXPRESSION`, spaces dropped outside quotes, quotes all single.
        let compact = SnipMateBacktick.withoutSpacesOutsideQuotes(code).replacingDoubleQuotes()
        guard compact.hasPrefix("snip.rv="), !compact.contains("\n"), !compact.contains(";") else { return "" }
        var expression = Substring(compact.dropFirst("snip.rv=".count))
        if expression.hasPrefix("("), expression.hasSuffix(")") { expression = expression.dropFirst().dropLast() }
        switch expression {
        case "snip.basename": return "${TM_FILENAME_BASE}"
        case "snip.fn", "fn": return "${TM_FILENAME}"
        case "path": return "${TM_FILEPATH}"
        case "snip.v.text", "snip.visual_text": return "${TM_SELECTED_TEXT}"
        default: break
        }
        if expression.hasPrefix("snip.basenameor'"), expression.hasSuffix("'") {
            let fallback = expression.dropFirst("snip.basenameor'".count).dropLast()
            if !fallback.contains("'") { return "${TM_FILENAME_BASE:\(SnippetBody.escaped(String(fallback)))}" }
        }
        if expression.hasPrefix("t["), let close = expression.firstIndex(of: "]"),
            let number = Int(expression[expression.index(expression.startIndex, offsetBy: 2)..<close]), number >= 0
        {
            switch expression[expression.index(after: close)...] {
            case "": return "$\(number)"
            case ".upper()": return "${\(number)/(.*)/${1:/upcase}/s}"
            case ".lower()": return "${\(number)/(.*)/${1:/downcase}/s}"
            default: return concatenation(expression)
            }
        }
        return concatenation(expression)
    }

    /// `t[1]+'.h'`: fields and quoted text joined with `+`, as mirrors and text; "" for anything else.
    private static func concatenation(_ expression: Substring) -> String {
        var rest = expression
        var output = ""
        while !rest.isEmpty {
            if rest.hasPrefix("t["), let close = rest.firstIndex(of: "]"),
                let number = Int(rest[rest.index(rest.startIndex, offsetBy: 2)..<close]), number >= 0
            {
                output += "${\(number)}"
                rest = rest[rest.index(after: close)...]
            } else if rest.first == "'", let close = rest.dropFirst().firstIndex(of: "'") {
                let text = rest[rest.index(after: rest.startIndex)..<close]
                guard !text.contains("\\") else { return "" }
                output += SnippetBody.escaped(String(text))
                rest = rest[rest.index(after: close)...]
            } else {
                return ""
            }
            if rest.first == "+" {
                rest = rest.dropFirst()
                if rest.isEmpty { return "" }
            } else if !rest.isEmpty {
                return ""
            }
        }
        return output
    }

    private static func shell(_ code: String) -> String {
        let trimmed = Substring(code).trimmingSpaces()
        guard trimmed.hasPrefix("date +") || trimmed.hasPrefix("date '+") || trimmed.hasPrefix("date \"+") else { return "" }
        var format = trimmed.dropFirst("date ".count)
        if let quote = format.first, quote == "'" || quote == "\"" {
            guard format.count >= 3, format.last == quote else { return "" }
            format = format.dropFirst().dropLast()
        }
        guard format.hasPrefix("+"), !format.contains("'"), !format.contains("\"") else { return "" }
        if format.contains(" ") && trimmed.dropFirst("date ".count).first == "+" { return "" }
        return SnipMateBacktick.replacement(for: "strftime('\(format.dropFirst())')").text
    }
}
