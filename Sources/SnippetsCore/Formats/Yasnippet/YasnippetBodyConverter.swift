/// Converts a yasnippet template to LSP snippet syntax, reading it as yasnippet 0.14 does (`yas--snippet-parse-create`):
///
/// 1. `` \` `` protects a backquote; each remaining `` `…` `` is Emacs Lisp (`YasnippetLisp.backquote`).
/// 2. `\\`, `\"`, `\'`, `\$`, `\}`, `\{`, `\(`, `\)` protect their character (in that order, each through the whole
///    text); any other backslash is literal.
/// 3. `$>` marks a line to indent; `${N:text}` is a field (nested fields allowed; `${text}` is an unnumbered one,
///    numbered here after the numbered ones, as yasnippet visits them; a number given to two fields is two fields,
///    see `number(_:)`); `$N` a field, or a mirror of one, and `${N}` the same (yasnippet 0.14.2 and later; 0.14.0
///    and 0.14.1 inserted the text `N`); `$0` the exit; `${N:$(lisp)}` a mirror of field N transformed by Lisp;
///    `$(lisp)` or `$$(lisp)` inside a field its own transformation. Any other `$`, `{` or `}` is literal.
///
/// Emacs Lisp is NEVER run: a well-known expression becomes what `YasnippetLisp` says, everything else is left out,
/// and each one is a note at its position in the file.
struct YasnippetBodyConverter {
    /// The converted body, where its parts came from, and the notes about what was left out or mapped.
    struct Result {
        var text: String
        var map: BodySourceMap
        var notes: [(offset: Int, severity: LibraryDiagnostic.Severity, code: DiagnosticCode, message: String)]
    }

    /// The codes of the converter's notes, one per construct.
    enum Code {
        static let backquote: DiagnosticCode = .emacsLispBackquote
        static let mirror: DiagnosticCode = .emacsLispMirror
        static let fieldTransform: DiagnosticCode = .emacsLispField
        static let choice: DiagnosticCode = .yasnippetChoice
        static let indentMarker: DiagnosticCode = .yasnippetIndentMarker
    }

    /// One piece of the template as yasnippet reads it.
    private indirect enum Node {
        case character(Unicode.Scalar, offset: Int)
        case lisp(String, offset: Int)
        case indent(offset: Int)
        case tabstop(Int, offset: Int, end: Int)
        case field(number: Int?, children: [Node], transform: (lisp: String, offset: Int)?, offset: Int)
        case mirror(number: Int?, lisp: String, offset: Int)
    }

    private var scalars: [Unicode.Scalar] = []
    private var offsets: [Int] = []
    /// The character after an escaping backslash (step 1 or 2): literal, whatever it is.
    private var isEscaped: [Bool] = []
    /// A backslash that escapes the next character: not part of the text.
    private var isEscape: [Bool] = []
    /// Backquote expressions by their opening index: the index of their closing backquote.
    private var backquoteEnds: [Int: Int] = [:]
    private var insideBackquote: [Bool] = []
    /// Each live `${` that a live `}` closes, by index: the index of that `}` (paired by nesting, in one pass).
    private var fieldEnds: [Int: Int] = [:]
    /// What is left of the steps Lisp scanning may take in this body: with it, a body of unclosed `$(` cannot make
    /// reading it cost more than linear time (a real template needs a fraction of it).
    private var scanBudget = 0
    /// Fields deeper than this are literal text, so a hostile template cannot exhaust the stack.
    static let maximumDepth = 64

    private var output: [UInt8] = []
    private var outputUTF16 = 0
    private var map = BodySourceMap()
    private var notes: [(offset: Int, severity: LibraryDiagnostic.Severity, code: DiagnosticCode, message: String)] = []
    private var nextUnnumbered = 1
    private var unnumbered: [Int: Int] = [:]
    private var fieldNumbers: Set<Int> = []
    /// Where a number is given a default twice: each written number's LSP number, and each of its fields' by offset.
    private var renumbered: [Int: Int] = [:]
    private var occurrenceNumbers: [Int: Int] = [:]

    /// Converts `body`, whose first byte is at UTF-8 offset `start` in its file.
    static func convert(_ body: Substring, at start: Int) -> Result {
        var converter = YasnippetBodyConverter()
        var offset = start
        for scalar in body.unicodeScalars {
            converter.scalars.append(scalar)
            converter.offsets.append(offset)
            offset += scalar.utf8.count
        }
        converter.offsets.append(offset)
        converter.protectEscapes()
        converter.pairFields()
        converter.scanBudget = 4 * converter.scalars.count + 65_536
        var index = 0
        let nodes = converter.parse(from: &index, until: converter.scalars.count, depth: 0)
        converter.number(nodes)
        converter.emit(nodes)
        return Result(text: String(decoding: converter.output, as: UTF8.self), map: converter.map, notes: converter.notes)
    }

    // MARK: Reading

    private func live(_ index: Int, _ character: Unicode.Scalar) -> Bool {
        index < scalars.count && scalars[index] == character && !isEscaped[index] && !isEscape[index]
            && !insideBackquote[index]
    }

    private mutating func protectEscapes() {
        let count = scalars.count
        isEscaped = Array(repeating: false, count: count)
        isEscape = Array(repeating: false, count: count)
        insideBackquote = Array(repeating: false, count: count)
        // Step 1: backquotes only.
        for index in 1..<max(1, count) where scalars[index] == "`" && scalars[index - 1] == "\\" && !isEscape[index - 1]
            && !isEscaped[index - 1]
        {
            isEscape[index - 1] = true
            isEscaped[index] = true
        }
        var open: Int?
        for index in 0..<count where scalars[index] == "`" && !isEscaped[index] {
            if let start = open {
                backquoteEnds[start] = index
                for inside in start...index { insideBackquote[inside] = true }
                open = nil
            } else {
                open = index
            }
        }
        // Step 2: the other escapes, one character at a time through the whole text.
        for escaped: Unicode.Scalar in ["\\", "\"", "'", "$", "}", "{", "(", ")"] {
            var index = 0
            while index + 1 < count {
                if scalars[index] == "\\", scalars[index + 1] == escaped, !isEscape[index], !isEscaped[index],
                    !isEscape[index + 1], !isEscaped[index + 1], !insideBackquote[index], !insideBackquote[index + 1]
                {
                    isEscape[index] = true
                    isEscaped[index + 1] = true
                    index += 2
                } else {
                    index += 1
                }
            }
        }
    }

    /// Pairs each live `${` with the live `}` that closes it, counting nested `${` as yasnippet's field scan does.
    private mutating func pairFields() {
        var open: [Int] = []
        var index = 0
        while index < scalars.count {
            if live(index, "$"), live(index + 1, "{") {
                open.append(index)
                index += 2
                continue
            }
            if live(index, "}"), let start = open.popLast() { fieldEnds[start] = index }
            index += 1
        }
    }

    private func isDigit(_ index: Int) -> Bool {
        index < scalars.count && ("0"..."9").contains(scalars[index]) && !isEscaped[index] && !insideBackquote[index]
    }

    private func number(from start: Int, to end: Int) -> Int {
        var value = 0
        for index in start..<end { value = min(value &* 10 &+ Int(scalars[index].value - 48), 1_000_000) }
        return value
    }

    /// The text of `range` as yasnippet reads Lisp there: escaped characters without their backslash.
    private func lispText(_ range: Range<Int>) -> String {
        var result = String.UnicodeScalarView()
        for index in range where !isEscape[index] { result.append(scalars[index]) }
        return String(result)
    }

    /// The index of the bracket closing the one at `start`, reading Lisp with Emacs's standard syntax table
    /// (`()`, `[]`, `{}` pair; strings; a backslash escapes the next character), as `yas--scan-sexps` does.
    private mutating func sexpEnd(from start: Int) -> Int? {
        var depth = 0
        var index = start
        while index < scalars.count {
            defer { index += 1 }
            scanBudget -= 1
            if scanBudget < 0 { return nil }
            if isEscaped[index] || isEscape[index] { continue }
            switch scalars[index] {
            case "(", "[", "{": depth += 1
            case ")", "]", "}":
                depth -= 1
                if depth == 0 { return index }
            case "\\": index += 1
            case "\"":
                index += 1
                while index < scalars.count, !(scalars[index] == "\"" && !isEscaped[index]) {
                    if scalars[index] == "\\" && !isEscape[index] { index += 1 }
                    index += 1
                }
            default: break
            }
        }
        return nil
    }

    /// The pieces from `index` to `end` (a field's content ends before its `}`), at field depth `depth`.
    private mutating func parse(from index: inout Int, until end: Int, depth: Int) -> [Node] {
        var nodes: [Node] = []
        while index < end {
            if let end = backquoteEnds[index] {
                nodes.append(.lisp(lispText((index + 1)..<end), offset: offsets[index]))
                index = end + 1
                continue
            }
            if isEscape[index] {
                index += 1
                continue
            }
            if live(index, "$") {
                if let node = dollar(at: &index, depth: depth) {
                    nodes.append(node)
                    continue
                }
            }
            nodes.append(.character(scalars[index], offset: offsets[index]))
            index += 1
        }
        return nodes
    }

    /// The construct a live `$` at `index` starts, or nil when the `$` is literal; moves `index` past it.
    private mutating func dollar(at index: inout Int, depth: Int) -> Node? {
        let inField = depth > 0
        let start = index
        let offset = offsets[start]
        if start + 1 < scalars.count, scalars[start + 1] == ">", !insideBackquote[start + 1] {
            index += 2
            return .indent(offset: offset)
        }
        if isDigit(start + 1) {
            var end = start + 1
            while isDigit(end) { end += 1 }
            index = end
            return .tabstop(number(from: start + 1, to: end), offset: offset, end: offsets[end])
        }
        if inField, let transform = fieldTransform(at: start) {
            index = transform.end + 1
            return .field(number: nil, children: [], transform: (transform.lisp, offset), offset: -1)
        }
        guard live(start + 1, "{"), let close = fieldEnds[start], depth < Self.maximumDepth else { return nil }
        var cursor = start + 2
        while isDigit(cursor) { cursor += 1 }
        var fieldNumber: Int?
        var contentStart = start + 2
        if cursor > start + 2, live(cursor, ":") {
            fieldNumber = number(from: start + 2, to: cursor)
            contentStart = cursor + 1
        } else if cursor > start + 2, live(cursor, "}") {
            index = cursor + 1
            return .tabstop(number(from: start + 2, to: cursor), offset: offset, end: offsets[cursor + 1])
        }
        // `${N:$(lisp)}`: a mirror of field N.
        var lispStart = contentStart
        if live(lispStart, "$") {
            lispStart += 1
            while lispStart < scalars.count, [" ", "\t", "\n"].contains(scalars[lispStart]) { lispStart += 1 }
            if live(lispStart, "("), let end = sexpEnd(from: start + 1) {
                index = end + 1
                return .mirror(number: fieldNumber, lisp: lispText((contentStart + 1)..<end), offset: offset)
            }
        }
        var cursorInField = contentStart
        let children = parse(from: &cursorInField, until: close, depth: depth + 1)
        index = close + 1
        // A field's own transformation is the last `$(…)` among its children; the rest are its text.
        var text: [Node] = []
        var transform: (lisp: String, offset: Int)?
        for child in children {
            if case .field(nil, let inner, let own?, -1) = child, inner.isEmpty {
                transform = own
            } else {
                text.append(child)
            }
        }
        return .field(number: fieldNumber, children: text, transform: transform, offset: offset)
    }

    /// `$(lisp)` or `$$(lisp)` inside a field at `start` (not right after the field's colon, which makes a mirror).
    private mutating func fieldTransform(at start: Int) -> (lisp: String, end: Int)? {
        var cursor = start
        while live(cursor, "$") { cursor += 1 }
        while cursor < scalars.count, [" ", "\t", "\n"].contains(scalars[cursor]), !isEscaped[cursor] { cursor += 1 }
        guard live(cursor, "("), let end = sexpEnd(from: cursor) else { return nil }
        return (lispText(cursor..<(end + 1)), end)
    }

    // MARK: Writing

    /// Numbers the unnumbered fields after the highest number, in the order they appear, and notes which numbers
    /// have a field (a mirror of a number without one is left out, as yasnippet leaves it).
    ///
    /// A number given to several fields (`${1:foo} … ${1:bar}`) is several fields in yasnippet, each inserting its
    /// own default: `yas--field-parse-create` makes a field of each and pushes it onto the snippet's list, so
    /// `yas--snippet-find-field` gives mirrors the last one, and navigation (a stable sort by number) visits them
    /// last first, before the next number. In LSP one number is one field, so they get numbers of their own in
    /// that order, and the numbers after them move up.
    private mutating func number(_ nodes: [Node]) {
        var highest = 0
        var order: [Int] = []
        var written: Set<Int> = []
        var occurrences: [Int: [Int]] = [:]
        func scan(_ nodes: [Node]) {
            for node in nodes {
                switch node {
                case .tabstop(let value, _, _):
                    highest = max(highest, value)
                    if value != 0 {
                        fieldNumbers.insert(value)
                        written.insert(value)
                    }
                case .field(let value, let children, _, let offset):
                    if let value {
                        highest = max(highest, value)
                        fieldNumbers.insert(value)
                        if value != 0 {
                            written.insert(value)
                            occurrences[value, default: []].append(offset)
                        }
                    } else {
                        order.append(offset)
                    }
                    scan(children)
                case .mirror(let value?, _, _):
                    highest = max(highest, value)
                    if value != 0 { written.insert(value) }
                case .mirror, .character, .lisp, .indent: break
                }
            }
        }
        scan(nodes)
        if occurrences.values.contains(where: { $0.count > 1 }) {
            var shift = 0
            for value in written.sorted() {
                renumbered[value] = value + shift
                guard let fields = occurrences[value], fields.count > 1 else { continue }
                for (index, offset) in fields.reversed().enumerated() { occurrenceNumbers[offset] = value + shift + index }
                shift += fields.count - 1
            }
            highest += shift
        }
        for offset in order {
            highest += 1
            unnumbered[offset] = highest
        }
    }

    private mutating func append(_ text: String, from offset: Int, verbatim: Bool) {
        map.append(.init(outputUTF16: outputUTF16, sourceUTF8: offset, isVerbatim: verbatim))
        output.append(contentsOf: text.utf8)
        outputUTF16 += text.utf16.count
    }

    private mutating func emit(_ nodes: [Node]) {
        for node in nodes {
            switch node {
            case .character(let scalar, let offset):
                if scalar == "$" || scalar == "}" || scalar == "\\" {
                    append("\\" + String(scalar), from: offset, verbatim: false)
                } else {
                    append(String(scalar), from: offset, verbatim: true)
                }
            case .lisp(let expression, let offset):
                let replacement = YasnippetLisp.backquote(expression)
                append(replacement ?? "", from: offset, verbatim: false)
                notes.append(
                    (offset, .note, Code.backquote,
                     "Emacs Lisp `\(Self.excerpt(expression))` is not run (snippets-lsp never runs Emacs Lisp); "
                        + (replacement.map { "it was replaced by \($0)" } ?? "it was left out")))
            case .indent(let offset):
                append("", from: offset, verbatim: false)
                notes.append(
                    (offset, .note, Code.indentMarker,
                     "'$>' (indent this line) is left out: the editor indents the inserted lines itself"))
            case .tabstop(let value, let offset, _):
                append("$\(renumbered[value] ?? value)", from: offset, verbatim: false)
            case .field(let value, let children, let transform, let offset):
                let fieldNumber = value.map { occurrenceNumbers[offset] ?? renumbered[$0] ?? $0 } ?? unnumbered[offset] ?? 0
                if let transform, let options = YasnippetLisp.choiceOptions(transform.lisp),
                    options.contains(where: { !$0.isEmpty })
                {
                    // LSP has no empty option (`${1|a,|}` is not a choice), so an empty one is left out.
                    let kept = options.filter { !$0.isEmpty }
                    let written = kept.map { SnippetLSPWriter.escapeChoiceOption($0) }.joined(separator: ",")
                    append("${\(fieldNumber)|\(written)|}", from: offset, verbatim: false)
                    let emptyNote = kept.count < options.count ? " (LSP has no empty option, so '' was left out)" : ""
                    notes.append(
                        (transform.offset, .note, Code.choice,
                         "field \(value ?? fieldNumber) asks to choose with Emacs Lisp (yas-choose-value), which is not run; it "
                            + "is offered as the choice \(kept.map { "'\($0)'" }.listed(conjunction: "or"))\(emptyNote)"))
                    continue
                }
                if let transform {
                    notes.append(
                        (transform.offset, .note, Code.fieldTransform,
                         "field \(value ?? fieldNumber)'s transformation `\(Self.excerpt(transform.lisp))` is Emacs Lisp, which "
                            + "is not run; the field keeps the text typed in it"))
                }
                if children.isEmpty {
                    append("${\(fieldNumber)}", from: offset, verbatim: false)
                } else {
                    append("${\(fieldNumber):", from: offset, verbatim: false)
                    emit(children)
                    append("}", from: offset, verbatim: false)
                }
            case .mirror(let value, let lisp, let offset):
                guard let value, value != 0, fieldNumbers.contains(value) else {
                    append("", from: offset, verbatim: false)
                    notes.append(
                        (offset, .warning, Code.mirror,
                         "this mirror transformation names no field of the snippet, so yasnippet inserts nothing "
                            + "for it; it was left out"))
                    continue
                }
                let replacement = YasnippetLisp.mirror(lisp, field: renumbered[value] ?? value)
                append(replacement ?? "", from: offset, verbatim: false)
                notes.append(
                    (offset, .note, Code.mirror,
                     "the mirror of field \(value) transforms it with Emacs Lisp `\(Self.excerpt(lisp))`, which is not "
                        + "run; " + (replacement.map { "it became \($0)" } ?? "it was left out")))
            }
        }
    }

    /// The start of a Lisp expression for a message: its first line, at most 60 characters.
    static func excerpt(_ expression: String) -> String {
        let trimmed = expression.drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        let line = trimmed.prefix { $0 != "\n" }
        if line.count <= 60 && line.count == trimmed.count { return String(line) }
        return String(line.prefix(60)) + "…"
    }
}
