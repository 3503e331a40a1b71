/// UltiSnips transformations (`${1/regex/format/options}`) in LSP form, where the meaning is the same.
///
/// UltiSnips compiles the regex with Python's `re` (always `DOTALL`) and applies its own format syntax (`$1`, `\u`,
/// `\l`, `\U…\E`, `\L…\E`, `(?1:yes:no)`, `\n`, `\t`). LSP clients run the regex as JavaScript and read VS Code's
/// format syntax. `convert` rewrites what has the same meaning in both (`(?P<name>` → `(?<name>`, `(?P=name)` →
/// `\k<name>`, `\A`/`\Z` → `^`/`$`, a leading `(?i)` → the `i` flag, `{,n}` → `{0,n}`, `\u$1` → `${1:/capitalize}`,
/// `\U$1\E` → `${1:/upcase}`, `(?1:yes:no)` → `${1:?yes:no}`, `.` → the `s` flag) and refuses the rest with the
/// reason, so the caller keeps the transformation as text with a note.
enum UltiSnipsTransformation {
    /// A transformation in LSP form: `${N/regex/format/flags}` minus the `${N` and `}`.
    struct Converted: Equatable {
        var regex: String
        var format: String
        var flags: String
    }

    /// The LSP form, or why there is none.
    static func convert(search: String, replace: String, options: String) -> Result<Converted, Refusal> {
        var flags = ""
        for option in options {
            switch option {
            case "g", "i", "m": if !flags.contains(option) { flags.append(option) }
            case "a": return .failure(Refusal("the 'a' option (ASCII transliteration) has no LSP counterpart"))
            default: continue  // UltiSnips ignores other letters
            }
        }
        let regex: String
        var enclosing: [Int: Set<Int>] = [:]
        switch convertRegex(search, flags: &flags, enclosingGroups: &enclosing) {
        case .success(let converted): regex = converted
        case .failure(let refusal): return .failure(refusal)
        }
        guard JavaScriptRegex.icuPattern(source: regex, flags: flags) != nil else {
            return .failure(Refusal("the regular expression '\(search)' is not one JavaScript accepts"))
        }
        // A match of exactly one character: changing its first letter's case changes its whole case.
        let singleCharacter = [".", "\\w", "\\S", "\\d"].contains(search)
        switch convertFormat(replace, singleCharacterMatch: singleCharacter, enclosingGroups: enclosing) {
        case .success(let format): return .success(Converted(regex: regex, format: format, flags: flags))
        case .failure(let refusal): return .failure(refusal)
        }
    }

    /// Why a transformation cannot be written in LSP form with the same meaning.
    struct Refusal: Error, Equatable {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// A Python regular expression as JavaScript source with the same meaning; adds flags a leading `(?i)`, `(?m)`
    /// or `(?s)` asks for and `s` for a `.` (UltiSnips always compiles with `DOTALL`).
    /// `enclosingGroups` gets, for each capturing group, the groups around it (0, the whole match, encloses all): a
    /// group can only have matched where those did.
    static func convertRegex(
        _ source: String, flags: inout String, enclosingGroups: inout [Int: Set<Int>]
    ) -> Result<String, Refusal> {
        let characters = Array(source)
        var output = ""
        var index = 0
        var usesDot = false
        var open: [Int?] = []  // the group each open parenthesis starts, nil for one that captures nothing
        var groupCount = 0
        func opens(capturing: Bool) {
            guard capturing else { return open.append(nil) }
            groupCount += 1
            enclosingGroups[groupCount] = Set(open.compactMap { $0 }).union([0])
            open.append(groupCount)
        }
        func at(_ offset: Int) -> Character? { offset < characters.count ? characters[offset] : nil }
        func addFlag(_ flag: Character) { if !flags.contains(flag) { flags.append(flag) } }
        while index < characters.count {
            let character = characters[index]
            switch character {
            case "\\":
                guard let next = at(index + 1) else { return .failure(Refusal("the regular expression ends in a lone backslash")) }
                switch next {
                case "A", "Z":
                    if flags.contains("m") { return .failure(Refusal("'\\\(next)' with the 'm' option has no JavaScript counterpart")) }
                    output += next == "A" ? "^" : "$"
                case "U", "N", "L", "G":
                    return .failure(Refusal("'\\\(next)' in a Python regular expression has no JavaScript counterpart"))
                default:
                    output += "\\" + String(next)
                }
                index += 2
            case "[":
                // A class is copied as written, but for a `]` first, which Python reads as a literal and JavaScript as
                // the end of an empty class.
                output.append("[")
                index += 1
                if at(index) == "^" { output.append("^"); index += 1 }
                if at(index) == "]" { output += "\\]"; index += 1 }
                while let current = at(index), current != "]" {
                    if current == "\\", let next = at(index + 1) {
                        output += "\\" + String(next)
                        index += 2
                    } else {
                        if current == "[" { output += "\\[" } else { output.append(current) }
                        index += 1
                    }
                }
                guard at(index) == "]" else { return .failure(Refusal("a character class is never closed")) }
                output.append("]")
                index += 1
            case "(":
                guard at(index + 1) == "?" else {
                    opens(capturing: true)
                    output.append("(")
                    index += 1
                    continue
                }
                let kind = at(index + 2)
                if kind == "P", at(index + 3) == "<" {
                    opens(capturing: true)
                    output += "(?<"
                    index += 4
                } else if kind == "P", at(index + 3) == "=" {
                    guard let close = characters[(index + 4)...].firstIndex(of: ")") else {
                        return .failure(Refusal("a '(?P=' reference is never closed"))
                    }
                    output += "\\k<" + String(characters[(index + 4)..<close]) + ">"
                    index = close + 1
                } else if kind == "#" {
                    guard let close = characters[(index + 3)...].firstIndex(of: ")") else {
                        return .failure(Refusal("a '(?#' comment is never closed"))
                    }
                    index = close + 1
                } else if kind == ":" || kind == "=" || kind == "!" || (kind == "<" && (at(index + 3) == "=" || at(index + 3) == "!")) {
                    opens(capturing: false)
                    output += "(?"
                    index += 2
                } else if let kind, "aiLmsux".contains(kind) {
                    // Inline flags: only at the very start, and only those JavaScript has as flags.
                    var end = index + 2
                    var letters = ""
                    while let letter = at(end), "aiLmsux".contains(letter) {
                        letters.append(letter)
                        end += 1
                    }
                    guard at(end) == ")", output.isEmpty else {
                        return .failure(Refusal("inline flags '(?\(letters)' inside the pattern have no JavaScript counterpart"))
                    }
                    for letter in letters {
                        switch letter {
                        case "i", "m", "s": addFlag(letter)
                        case "u": continue
                        default: return .failure(Refusal("the inline flag '\(letter)' has no JavaScript counterpart"))
                        }
                    }
                    index = end + 1
                } else {
                    return .failure(Refusal("'(?\(kind.map(String.init) ?? "")' has no JavaScript counterpart"))
                }
            case "{":
                if at(index + 1) == ",", let close = characters[(index + 2)...].firstIndex(of: "}"),
                    close > index + 2, characters[(index + 2)..<close].allSatisfy(\.isASCIIDigit)
                {
                    output += "{0," + String(characters[(index + 2)..<close]) + "}"
                    index = close + 1
                } else {
                    output.append("{")
                    index += 1
                }
                if at(index) == "+" { return .failure(Refusal("a possessive quantifier has no JavaScript counterpart")) }
            case "*", "+", "?":
                output.append(character)
                index += 1
                if at(index) == "+" { return .failure(Refusal("a possessive quantifier has no JavaScript counterpart")) }
                if at(index) == "?" {
                    output.append("?")
                    index += 1
                }
            case ")":
                if !open.isEmpty { open.removeLast() }
                output.append(")")
                index += 1
            case ".":
                usesDot = true
                output.append(".")
                index += 1
            default:
                output.append(character)
                index += 1
            }
        }
        if usesDot { addFlag("s") }
        return .success(output)
    }

    /// One piece of an UltiSnips format.
    private enum Piece {
        case text(String)
        case group(Int)
        /// `\u` / `\l` / `\U…\E` / `\L…\E` applied to what follows.
        case capitalize(Int)
        case upcase([Piece])
        case downcase([Piece])
        case conditional(group: Int, yes: String, no: String?)
        /// `(?1:text $1 text)`: text and groups, each group one that can only match where group 1 did.
        case whenMatched(group: Int, [Piece])
        /// `(?1:$1:else)`.
        case groupOrElse(Int, String)
    }

    /// The UltiSnips format as a VS Code format string.
    /// `enclosingGroups` maps a capturing group to the groups around it in the regex (see `convertRegex`).
    static func convertFormat(
        _ format: String, singleCharacterMatch: Bool = false, enclosingGroups: [Int: Set<Int>] = [:]
    ) -> Result<String, Refusal> {
        let characters = Array(format)
        var index = 0
        switch pieces(
            characters, &index, until: nil, singleCharacterMatch: singleCharacterMatch, enclosingGroups: enclosingGroups)
        {
        case .failure(let refusal): return .failure(refusal)
        case .success(let pieces): return render(pieces)
        }
    }

    private static func pieces(
        _ characters: [Character], _ index: inout Int, until stop: String?, singleCharacterMatch: Bool = false,
        enclosingGroups: [Int: Set<Int>] = [:]
    ) -> Result<[Piece], Refusal> {
        var result: [Piece] = []
        func at(_ offset: Int) -> Character? { offset < characters.count ? characters[offset] : nil }
        func appendText(_ text: String) {
            if case .text(let previous) = result.last {
                result[result.count - 1] = .text(previous + text)
            } else {
                result.append(.text(text))
            }
        }
        func groupNumber(at start: Int) -> (Int, Int)? {
            var end = start
            while let digit = at(end), digit.isASCIIDigit { end += 1 }
            guard end > start, let number = Int(String(characters[start..<end])) else { return nil }
            return (number, end)
        }
        while index < characters.count {
            let character = characters[index]
            if stop == "\\E", character == "\\", at(index + 1) == "E" {
                index += 2
                return .success(result)
            }
            if character == "$", let (number, end) = groupNumber(at: index + 1) {
                result.append(.group(number))
                index = end
                continue
            }
            if character == "(", at(index + 1) == "?", let (number, end) = groupNumber(at: index + 2), at(end) == ":" {
                // Up to the matching `)`, its arguments split at unescaped `:` outside parentheses.
                var depth = 1
                var position = end + 1
                var arguments = [""]
                var escaped = false
                while position < characters.count {
                    let current = characters[position]
                    if !escaped && current == "(" { depth += 1 }
                    if !escaped && current == ")" {
                        depth -= 1
                        if depth == 0 { break }
                    }
                    if current == ":" && depth == 1 && !escaped {
                        arguments.append("")
                    } else {
                        arguments[arguments.count - 1].append(current)
                    }
                    escaped = current == "\\" ? !escaped : false
                    position += 1
                }
                guard position < characters.count else { return .failure(Refusal("a '(?\(number):' conditional is never closed")) }
                let texts = arguments.prefix(2).map(plainText)
                // `(?1:$1:else)` is the group when it matched, else the text: LSP's `${1:-else}`.
                if arguments.count == 2, arguments[0] == "$\(number)", let no = texts[1] {
                    result.append(no.isEmpty ? .group(number) : .groupOrElse(number, no))
                    index = position + 1
                    continue
                }
                guard texts.allSatisfy({ $0 != nil }) else {
                    // Text and groups with nothing otherwise: each text as `${N:+text}`, each group as itself, when
                    // that group can only have matched where group N did (N itself, one inside it, or N is 0).
                    var inner = 0
                    if arguments.count == 1 || texts.last == "",
                        case .success(let yes) = pieces(Array(arguments[0]), &inner, until: nil),
                        yes.allSatisfy({ piece in
                            switch piece {
                            case .text: return true
                            case .group(let other):
                                return other == number || number == 0 || enclosingGroups[other, default: []].contains(number)
                            default: return false
                            }
                        })
                    {
                        result.append(.whenMatched(group: number, yes))
                        index = position + 1
                        continue
                    }
                    return .failure(Refusal("a conditional whose text holds groups or conditionals has no LSP counterpart"))
                }
                result.append(.conditional(group: number, yes: texts[0]!, no: texts.count > 1 ? texts[1] : nil))
                index = position + 1
                continue
            }
            if character == "\\", let next = at(index + 1) {
                switch next {
                case "u", "l":
                    index += 2
                    if at(index) == "$", let (number, end) = groupNumber(at: index + 1) {
                        if number == 0 && singleCharacterMatch {
                            result.append(next == "u" ? .upcase([.group(0)]) : .downcase([.group(0)]))
                        } else if next == "u" {
                            result.append(.capitalize(number))
                        } else {
                            return .failure(Refusal("'\\l$\(number)' (lower-case the first letter) has no LSP counterpart"))
                        }
                        index = end
                    } else if let following = at(index) {
                        appendText(next == "u" ? following.uppercased() : following.lowercased())
                        index += 1
                    }
                    continue
                case "U", "L":
                    // Only with its `\E`; without one UltiSnips leaves the letter.
                    guard characters[(index + 2)...].indices.contains(where: { characters[$0] == "\\" && at($0 + 1) == "E" }) else {
                        appendText(String(next))
                        index += 2
                        continue
                    }
                    index += 2
                    switch pieces(characters, &index, until: "\\E") {
                    case .failure(let refusal): return .failure(refusal)
                    case .success(let inner): result.append(next == "U" ? .upcase(inner) : .downcase(inner))
                    }
                    continue
                case "n": appendText("\n")
                case "t": appendText("\t")
                default: appendText(String(next))
                }
                index += 2
                continue
            }
            appendText(String(character))
            index += 1
        }
        return .success(result)
    }

    /// The text of a conditional's argument when it holds no group or conditional (escapes applied), else nil.
    private static func plainText(_ argument: String) -> String? {
        let characters = Array(argument)
        var index = 0
        guard case .success(let pieces) = pieces(characters, &index, until: nil) else { return nil }
        var text = ""
        for piece in pieces {
            guard case .text(let part) = piece else { return nil }
            text += part
        }
        return text
    }

    private static func render(_ pieces: [Piece]) -> Result<String, Refusal> {
        var output = ""
        for piece in pieces {
            switch piece {
            case .text(let text): output += escapeFormatText(text)
            case .group(let number): output += "${\(number)}"
            case .capitalize(let number): output += "${\(number):/capitalize}"
            case .upcase(let inner), .downcase(let inner):
                let isUp: Bool
                if case .upcase = piece { isUp = true } else { isUp = false }
                for part in inner {
                    switch part {
                    case .text(let text): output += escapeFormatText(isUp ? text.uppercased() : text.lowercased())
                    case .group(let number), .capitalize(let number): output += "${\(number):/\(isUp ? "upcase" : "downcase")}"
                    default: return .failure(Refusal("a conditional or case change inside '\\U…\\E' has no LSP counterpart"))
                    }
                }
            // A conditional's text is read up to its `}` (the `?` form's if-text up to its `:`) with `\$`, `\}` and
            // `\\` as its only escapes, as any snippet text: a `/` or `:` there is text.
            case .groupOrElse(let group, let no):
                output += "${\(group):-\(SnippetBody.escaped(no))}"
            case .conditional(let group, let yes, let no):
                if yes.contains(":"), !(no?.isEmpty ?? true) {
                    return .failure(Refusal("a conditional's text '\(yes)' holds ':' before its 'otherwise' text, which LSP's ${N:?if:else} cannot say"))
                }
                switch (yes.isEmpty, no?.isEmpty ?? true) {
                case (false, false): output += "${\(group):?\(SnippetBody.escaped(yes)):\(SnippetBody.escaped(no!))}"
                case (false, true): output += "${\(group):+\(SnippetBody.escaped(yes))}"
                case (true, false):
                    // LSP's `${1:-else}` gives the group when it matched, where UltiSnips gives nothing.
                    return .failure(Refusal("a conditional with nothing for a match and text otherwise has no LSP counterpart"))
                case (true, true): continue
                }
            case .whenMatched(let group, let inner):
                for part in inner {
                    switch part {
                    case .text(let text) where group == 0: output += escapeFormatText(text)  // group 0 always matched
                    case .text(let text): output += "${\(group):+\(SnippetBody.escaped(text))}"
                    case .group(let other): output += "${\(other)}"
                    default: return .failure(Refusal("a conditional holds more than text and groups"))
                    }
                }
            }
        }
        return .success(output)
    }

    /// `text` as literal text of a VS Code format string (inside `${N/…/…/}`).
    static func escapeFormatText(_ text: String) -> String {
        var result = ""
        for character in text {
            if character == "$" || character == "}" || character == "\\" || character == "/" { result.append("\\") }
            result.append(character)
        }
        return result
    }
}
