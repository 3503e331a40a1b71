/// Turns an espanso replacement (`replace`, `markdown`, `html`, a `form` layout) into an LSP snippet body.
///
/// - `{{name}}` and `{{name.field}}` name a variable of the match (`vars`) or of the file (`global_vars`); each
///   becomes what a language server can do with it: `date` the LSP date variables its strftime format maps to,
///   `clipboard` `$CLIPBOARD`, `form` fields and `choice` tabstops (placeholders and choices; a second use mirrors
///   the first), `echo` its text, `random` its first choice, `match` the named match's text. `shell` and `script`
///   are never run: they become a placeholder named after the variable. Whatever cannot be said exactly is noted;
///   where espanso refuses to expand the match (an undefined variable, a missing nested match, an `echo` or `random`
///   variable without its params) the placeholder is a warning. A variable with `inject_vars: false` keeps the
///   `{{…}}` of its params as text.
/// - `$|$` (espanso's cursor) becomes the final tabstop `$0`.
/// - Everything else is text, `\{\{` and `\}\}` without their backslashes (espanso's
///   `unescape_variable_inections`), with `$`, `}` and `\` escaped as the LSP snippet grammar requires.
struct EspansoReplacement {
    /// One variable (`vars` or `global_vars` entry) as the file writes it.
    struct Variable {
        var name: String
        var type: String
        /// The `type` value's node (notes about the variable point at it) and the whole entry.
        var typeNode: YAMLNode
        var node: YAMLNode
        var params: YAMLNode?
        /// Which file read (the file itself 0, its imports after it) defines it: where notes about it belong.
        var group = 0
    }

    /// A remark about something the body could not express exactly, at a source offset.
    struct Note: Hashable {
        var severity: LibraryDiagnostic.Severity
        var code: DiagnosticCode
        var message: String
        var offset: Int
        /// The file (as `Variable.group`) the offset is in.
        var group = 0
    }

    /// What the conversion counts, per construct, for `check` and the tests.
    enum Construct: String, CaseIterable {
        case date, dateUnmapped = "date-unmapped", clipboard, form, choice, echo, random, match, shell, script
        case cursor, unknownVariable = "unknown-variable", undefinedReference = "undefined-reference"
    }

    /// Variables visible to the match by name: its own first, then the file's globals (hashed: a file of many
    /// variables and many references costs their sum, not their product).
    var variables: [String: Variable]
    var globals: [String: Variable]
    /// Finds another match's replacement by trigger (for `type: match`), with the scalar it came from.
    var matchByTrigger: (String) -> Nested?

    /// Another match a `match` variable names: its replacement, its variables and the file it is in.
    struct Nested {
        var scalar: YAMLScalar
        var vars: [String: Variable]
        var group: Int
    }

    /// Variables by name, the last of a name winning (as espanso's later definition does).
    static func byName(_ variables: [Variable]) -> [String: Variable] {
        Dictionary(variables.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The file the text being converted is in.
    private var group = 0

    private(set) var body = ""
    private(set) var bodyUTF16 = 0
    private(set) var map = BodySourceMap()
    private(set) var notes: [Note] = []
    private(set) var constructs: [Construct: Int] = [:]
    private var nextTabstop = 1
    /// Tabstops already given to a variable (or `var.field`), so a second use mirrors the first.
    private var tabstops: [String: Int] = [:]
    private var cursorPlaced = false
    /// The variables and matches being expanded (one naming itself stops here), each variable with the scope
    /// of the match it belongs to (a nested match's `two` is not the outer match's `two`).
    private var expanding: [String] = []
    private var scope = 0
    private var scopes = 0
    /// What one body may still expand: nested matches multiply, so a hostile file could ask for exponential text.
    private var expansionBudget = EspansoReplacement.maximumExpansions
    /// The bytes this body may still take of its file's allowance (`fileAllowance`): a global used many times in
    /// many matches would otherwise make a file's bodies grow as the product of the two.
    var fileBytesLeft = Int.max

    /// A conversion for the match whose triggers are `triggers` (a `match` variable naming one of them is a loop).
    init(
        triggers: [String] = [], variables: [Variable], globals: [String: Variable],
        matchByTrigger: @escaping (String) -> Nested?
    ) {
        self.variables = Self.byName(variables)
        self.globals = globals
        self.matchByTrigger = matchByTrigger
        self.expanding = triggers.map { "match:" + $0 }
    }

    /// How deep `echo`, `random` and `match` expansions may nest.
    static let maximumExpansionDepth = 8
    /// How many references one body may expand, and how long it may grow by expanding them.
    static let maximumExpansions = 4096
    static let maximumBodyBytes = 1 << 20
    /// The bytes all the bodies one file's matches convert to may take: 8 times the file's own bytes plus 64 KiB. References met past it become placeholders, so a file's bodies are bounded by a
    /// small multiple of its size, whatever mix of variables, `echo`, `random`, `match` and imports it uses (an
    /// expansion under way may finish its own text: the overshoot is at most the nesting depth times the largest
    /// scalar, itself bounded by the bytes read).
    static func fileAllowance(fileBytes: Int) -> Int { 8 * fileBytes + (64 << 10) }

    mutating func note(
        _ severity: LibraryDiagnostic.Severity, _ code: DiagnosticCode, _ message: String, at offset: Int, in file: Int? = nil
    ) {
        notes.append(Note(severity: severity, code: code, message: message, offset: offset, group: file ?? group))
    }

    private mutating func emit(_ text: String, from offset: Int) {
        guard !text.isEmpty else { return }
        map.append(BodySourceMap.Anchor(outputUTF16: bodyUTF16, sourceUTF8: offset, isVerbatim: false))
        body += text
        bodyUTF16 += text.utf16.count
    }

    static func escaped(_ text: some StringProtocol) -> String {
        SnippetBody.escaped(String(text))
    }

    /// `text` as espanso types it: `\{\{` and `\}\}` without their backslashes, as its renderer's last step
    /// (`unescape_variable_inections`) leaves them, first the one then the other through the whole text.
    static func unescapingBraces(_ text: some StringProtocol) -> String {
        var result = String(text)
        guard result.contains("\\") else { return result }
        result = result.replacing("\\{\\{", with: "{{")
        return result.replacing("\\}\\}", with: "}}")
    }

    static func escapedChoice(_ text: String) -> String {
        var result = ""
        for character in text {
            if character == "," || character == "|" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// Converts `scalar`'s text (a replacement, or a variable's text expanded inside one) and appends it; with
    /// `fields`, `[[name]]` is a form field too (a match's `form`). One pass: only the latest `{{` (or `[[`) on a
    /// line whose text so far could be a name can open a reference, so hostile braces cost linear time.
    mutating func append(_ scalar: YAMLScalar, fields: Bool = false, depth: Int = 0) {
        let bytes = Array(scalar.value.utf8)
        var index = 0
        var literalStart = 0
        var braces: Int? = nil
        var brackets: Int? = nil
        func source(_ offset: Int) -> Int { scalar.sourceOffset(ofValueUTF8: offset) }
        func flush(_ end: Int) {
            if end > literalStart {
                let text = String(decoding: bytes[literalStart..<end], as: UTF8.self)
                emit(Self.escaped(Self.unescapingBraces(text)), from: source(literalStart))
            }
        }
        func mayBeInName(_ byte: UInt8) -> Bool {
            byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: " ")
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
        }
        while index < bytes.count {
            let byte = bytes[index]
            let next: UInt8 = index + 1 < bytes.count ? bytes[index + 1] : 0
            if byte == UInt8(ascii: "{") && next == byte {
                braces = index
                index += 1
                continue
            }
            if fields && byte == UInt8(ascii: "[") && next == byte {
                brackets = index
                index += 1
                continue
            }
            if (byte == UInt8(ascii: "{") && braces == index - 1) || (byte == UInt8(ascii: "[") && brackets == index - 1) {
                index += 1
                continue
            }
            if byte == UInt8(ascii: "}") && next == byte, let open = braces {
                braces = nil
                let inner = Substring(String(decoding: bytes[(open + 2)..<index], as: UTF8.self)).trimmingSpaces()
                if Self.isReference(inner) {
                    flush(open)
                    reference(inner, at: source(open), depth: depth)
                    index += 2
                    literalStart = index
                    continue
                }
            }
            if byte == UInt8(ascii: "]") && next == byte, let open = brackets {
                brackets = nil
                let field = Substring(String(decoding: bytes[(open + 2)..<index], as: UTF8.self)).trimmingSpaces()
                if Self.isReference(field) {
                    flush(open)
                    formField(form: "", field: field, params: nil, at: source(open))
                    index += 2
                    literalStart = index
                    continue
                }
            }
            if !mayBeInName(byte) {
                braces = nil
                brackets = nil
            }
            if byte == UInt8(ascii: "$") && next == UInt8(ascii: "|") && index + 2 < bytes.count
                && bytes[index + 2] == UInt8(ascii: "$") && !cursorPlaced && depth == 0
            {
                flush(index)
                emit("$0", from: source(index))
                cursorPlaced = true
                constructs[.cursor, default: 0] += 1
                index += 3
                literalStart = index
                continue
            }
            index += 1
        }
        flush(bytes.count)
    }

    /// Whether `text` is what espanso reads between `{{` and `}}`: a word, optionally `.` and another word.
    static func isReference(_ text: String) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        return !parts.isEmpty && parts.allSatisfy { part in
            !part.isEmpty && part.allSatisfy { $0 == "_" || $0.isLetter || $0.isNumber }
        }
    }

    /// The match's own variable, else the global one. A match variable of `type: global` only names the global of
    /// that name (espanso-render's "global" alias, which orders its evaluation): without one it names nothing.
    func variable(named name: String) -> Variable? {
        guard let local = variables[name] else { return globals[name] }
        return local.type == "global" ? globals[name] : local
    }

    mutating func tabstop(for key: String) -> (number: Int, isNew: Bool) {
        if let number = tabstops[key] { return (number, false) }
        let number = nextTabstop
        nextTabstop += 1
        tabstops[key] = number
        return (number, true)
    }

    mutating func placeholder(_ key: String, text: String, from offset: Int) {
        let (number, isNew) = tabstop(for: key)
        emit(isNew ? "${\(number):\(Self.escaped(text))}" : "$\(number)", from: offset)
    }

    mutating func reference(_ reference: String, at offset: Int, depth: Int) {
        let parts = reference.split(separator: ".", maxSplits: 1).map(String.init)
        let name = parts.first ?? ""
        let field = parts.count > 1 ? parts[1] : nil
        guard let variable = variable(named: name) else {
            constructs[.undefinedReference, default: 0] += 1
            note(
                .warning, .espansoUndefinedVariable,
                "'{{\(reference)}}' names no variable of this match, nor a global_vars entry of this file or its imports, "
                    + "so espanso refuses to expand the match unless another match file defines it in global_vars; "
                    + "it becomes a placeholder",
                at: offset)
            placeholder("?" + reference, text: reference, from: offset)
            return
        }
        let key = "\(scope):\(name)"
        guard !expanding.contains(key), depth < Self.maximumExpansionDepth else {
            note(.warning, .espansoVariableLoop, "the variable '\(name)' uses itself; it becomes a placeholder here", at: offset)
            placeholder("?" + reference, text: name, from: offset)
            return
        }
        guard body.utf8.count < fileBytesLeft else {
            noteOnce(
                .warning, .espansoExpansionLimit,
                "this file's matches expand to more bytes in all than 8 times the file (plus 64 KiB); this reference and the rest become placeholders",
                at: offset)
            placeholder("?" + reference, text: name, from: offset)
            return
        }
        guard expansionBudget > 0, body.utf8.count < Self.maximumBodyBytes else {
            noteOnce(
                .warning, .espansoExpansionLimit,
                "this match expands more than \(Self.maximumExpansions) references or past \(Self.maximumBodyBytes) bytes; the rest become placeholders",
                at: offset)
            placeholder("?" + reference, text: name, from: offset)
            return
        }
        expansionBudget -= 1
        expanding.append(key)
        defer { expanding.removeLast() }
        let definition = variable.typeNode.range.lowerBound
        let params = variable.params
        switch variable.type {
        case "date":
            date(variable, at: offset)
        case "clipboard":
            constructs[.clipboard, default: 0] += 1
            emit("${CLIPBOARD}", from: offset)
        case "form":
            constructs[.form, default: 0] += 1
            let fields = Self.formFieldNames(params)
            formField(form: name, field: field ?? fields.first ?? "value", params: params, at: offset)
        case "choice":
            constructs[.choice, default: 0] += 1
            let values = Self.choiceValues(params?.member("values")?.value)
            let (number, isNew) = tabstop(for: name)
            if !isNew {
                emit("$\(number)", from: offset)
            } else if values.isEmpty {
                emit("${\(number):\(Self.escaped(name))}", from: offset)
            } else {
                emit("${\(number)|\(values.map(Self.escapedChoice).joined(separator: ","))|}", from: offset)
            }
        case "echo":
            constructs[.echo, default: 0] += 1
            if let echo = params?.member("echo")?.value, let text = echo.scalar, !echo.isNull {
                appendParam(text, of: variable, depth: depth)
            } else {
                missingParam("the echo variable '\(name)' has no 'echo' text", of: variable)
                placeholder(name, text: name, from: offset)
            }
        case "random":
            constructs[.random, default: 0] += 1
            // espanso picks among the choices that are strings.
            let choices = (params?.member("choices")?.value.items ?? []).compactMap(\.scalar).filter { !$0.isNull }
            if let first = choices.first {
                noteOnce(
                    .note, .espansoRandom,
                    "the random variable '\(name)' is inserted as its first choice of \(choices.count) (a language server picks no random text)",
                    at: definition, in: variable.group)
                appendParam(first, of: variable, depth: depth)
            } else {
                missingParam("the random variable '\(name)' has no 'choices' to pick from", of: variable)
                placeholder(name, text: name, from: offset)
            }
        case "match":
            constructs[.match, default: 0] += 1
            let trigger = params?.member("trigger")?.value.string ?? ""
            if expanding.contains("match:" + trigger) {
                note(
                    .warning, .espansoVariableLoop,
                    "the match variable '\(name)' names the trigger '\(trigger)' of a match it is part of; it becomes a placeholder here",
                    at: offset)
                placeholder(name, text: name, from: offset)
            } else if let nested = matchByTrigger(trigger) {
                let saved = (variables, scope, group)
                variables = nested.vars
                group = nested.group
                scopes += 1
                scope = scopes
                expanding.append("match:" + trigger)
                append(nested.scalar, depth: depth + 1)
                expanding.removeLast()
                (variables, scope, group) = saved
            } else {
                noteOnce(
                    .warning, .espansoMatchNotFound,
                    "the match variable '\(name)' names the trigger '\(trigger)', which no match of this file or its imports "
                        + "has, so espanso refuses to expand the match; it becomes a placeholder",
                    at: definition, in: variable.group)
                placeholder(name, text: name, from: offset)
            }
        case "regex-group":
            // A named group of the match's regex trigger: what the typed text held there (the regex is noted).
            placeholder(name, text: name, from: offset)
        case "shell", "script":
            // Never run; the reader notes each such variable once, where it is defined (`notRunNote`).
            constructs[variable.type == "shell" ? .shell : .script, default: 0] += 1
            placeholder(name, text: name, from: offset)
        default:
            constructs[.unknownVariable, default: 0] += 1
            noteOnce(
                .note, .espansoVariableType,
                "the variable type '\(variable.type)' of '\(name)' is not one this server reads; '{{\(name)}}' becomes a placeholder",
                at: definition, in: variable.group)
            placeholder(name, text: name, from: offset)
        }
    }

    /// A variable's text param (`echo`, a `random` choice): with its references expanded, as espanso injects them,
    /// or as text when the variable says `inject_vars: false`.
    private mutating func appendParam(_ text: YAMLScalar, of variable: Variable, depth: Int) {
        if Self.injectsVariables(variable) {
            append(text, depth: depth + 1)
        } else {
            emit(Self.escaped(Self.unescapingBraces(text.value)), from: text.sourceOffset(ofValueUTF8: 0))
        }
    }

    /// Whether espanso injects other variables into this variable's params (`inject_vars`, true unless it is false).
    static func injectsVariables(_ variable: Variable) -> Bool {
        guard let value = variable.node.member("inject_vars")?.value.string else { return true }
        return !["false", "False", "FALSE"].contains(value)
    }

    /// Said once, where the variable is defined: espanso's extension reports an error, so the match is not expanded.
    private mutating func missingParam(_ what: String, of variable: Variable) {
        noteOnce(
            .warning, .espansoMissingParam,
            "\(what), so espanso refuses to expand the match; '{{\(variable.name)}}' becomes a placeholder",
            at: variable.typeNode.range.lowerBound, in: variable.group)
    }

    /// What is said about a shell or script variable, once, where it is defined: it is never run.
    static func notRunNote(_ variable: Variable) -> Note? {
        guard variable.type == "shell" || variable.type == "script" else { return nil }
        return Note(
            severity: .note, code: variable.type == "shell" ? .espansoShellNotRun : .espansoScriptNotRun,
            message: "the \(variable.type) variable '\(variable.name)' is never run; '{{\(variable.name)}}' becomes a placeholder to fill in",
            offset: variable.typeNode.range.lowerBound, group: variable.group)
    }

    /// Notes about a variable's definition are said once, however often it is used.
    mutating func noteOnce(
        _ severity: LibraryDiagnostic.Severity, _ code: DiagnosticCode, _ message: String, at offset: Int, in file: Int? = nil
    ) {
        let file = file ?? group
        guard !notes.contains(where: { $0.offset == offset && $0.code == code && $0.group == file }) else { return }
        note(severity, code, message, at: offset, in: file)
    }

    /// A form field: a placeholder holding its default (or its name), or a choice of its values.
    mutating func formField(form: String, field: String, params: YAMLNode?, at offset: Int) {
        let key = form + "." + field
        let (number, isNew) = tabstop(for: key)
        guard isNew else {
            emit("$\(number)", from: offset)
            return
        }
        let spec = params?.member("fields")?.value.member(field)?.value
        let values = Self.choiceValues(spec?.member("values")?.value)
        if !values.isEmpty {
            emit("${\(number)|\(values.map(Self.escapedChoice).joined(separator: ","))|}", from: offset)
        } else {
            let text = spec?.member("default")?.value.string ?? field
            emit("${\(number):\(Self.escaped(text))}", from: offset)
        }
    }

    /// The field names of a form's layout, in order (`[[name]]`).
    static func formFieldNames(_ params: YAMLNode?) -> [String] {
        guard let layout = params?.member("layout")?.value.string else { return [] }
        var names: [String] = []
        var rest = Substring(layout)
        while let open = rest.range(of: "[["), let close = rest[open.upperBound...].range(of: "]]") {
            names.append(rest[open.upperBound..<close.lowerBound].trimmingSpaces())
            rest = rest[close.upperBound...]
        }
        return names
    }

    /// A choice's values: a list of strings or of `{label, id}` (the id is inserted), or lines of one string.
    static func choiceValues(_ node: YAMLNode?) -> [String] {
        guard let node else { return [] }
        if let items = node.items {
            return items.compactMap { item in
                item.string ?? item.member("id")?.value.string ?? item.member("label")?.value.string
            }
        }
        if let text = node.string {
            return text.split(separator: "\n").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
        }
        return []
    }

    /// strftime conversions (chrono's, as espanso formats dates) that LSP date variables say exactly.
    static let dateVariables: [Character: String] = [
        "Y": "${CURRENT_YEAR}", "y": "${CURRENT_YEAR_SHORT}", "m": "${CURRENT_MONTH}", "d": "${CURRENT_DATE}",
        "B": "${CURRENT_MONTH_NAME}", "b": "${CURRENT_MONTH_NAME_SHORT}", "h": "${CURRENT_MONTH_NAME_SHORT}",
        "A": "${CURRENT_DAY_NAME}", "a": "${CURRENT_DAY_NAME_SHORT}", "H": "${CURRENT_HOUR}", "M": "${CURRENT_MINUTE}",
        "S": "${CURRENT_SECOND}", "s": "${CURRENT_SECONDS_UNIX}", "z": "${CURRENT_TIMEZONE_OFFSET}",
        "F": "${CURRENT_YEAR}-${CURRENT_MONTH}-${CURRENT_DATE}", "T": "${CURRENT_HOUR}:${CURRENT_MINUTE}:${CURRENT_SECOND}",
        "R": "${CURRENT_HOUR}:${CURRENT_MINUTE}", "D": "${CURRENT_MONTH}/${CURRENT_DATE}/${CURRENT_YEAR_SHORT}",
        "%": "%", "n": "\n", "t": "\t",
    ]

    /// The LSP text of a strftime format, or the conversions it uses that have no LSP variable.
    static func dateText(_ format: String) -> (text: String?, unmapped: [String]) {
        var text = ""
        var unmapped: [String] = []
        var characters = format.makeIterator()
        while let character = characters.next() {
            guard character == "%" else {
                text += escaped(String(character))
                continue
            }
            guard var code = characters.next() else {
                unmapped.append("%")
                break
            }
            var spec = "%" + String(code)
            // chrono's padding modifiers (%-d, %_d, %0d) and %.3f-style fractions have no LSP form.
            if code == "-" || code == "_" || code == "0" || code == "." || code == ":" {
                if let next = characters.next() {
                    code = next
                    spec += String(next)
                }
                unmapped.append(spec)
                continue
            }
            if let variable = dateVariables[code] {
                text += code == "%" ? "%" : variable
            } else {
                unmapped.append(spec)
            }
        }
        return unmapped.isEmpty ? (text, []) : (nil, unmapped)
    }

    mutating func date(_ variable: Variable, at offset: Int) {
        let format = variable.params?.member("format")?.value.string ?? ""
        let definition = variable.typeNode.range.lowerBound
        let shift = variable.params?.member("offset")?.value.string.flatMap { Int($0) } ?? 0
        let (text, unmapped) = Self.dateText(format)
        if let text, shift == 0, !format.contains("{{") {
            constructs[.date, default: 0] += 1
            if variable.params?.member("locale") != nil {
                noteOnce(
                    .note, .espansoDateLocale,
                    "the date variable '\(variable.name)' names a locale; the editor writes month and day names in its own language",
                    at: definition, in: variable.group)
            }
            emit(text, from: offset)
            return
        }
        constructs[.dateUnmapped, default: 0] += 1
        let why: String
        if format.contains("{{") {
            why = "its format comes from another variable"
        } else if shift != 0 {
            why = "it is shifted by \(shift) seconds (offset), which LSP date variables cannot say"
        } else {
            why = "\(unmapped.listed(conjunction: "and")) \(unmapped.count == 1 ? "has" : "have") no LSP date variable"
        }
        noteOnce(
            .note, .espansoDateUnmapped,
            "the date variable '\(variable.name)' becomes a placeholder: \(why)", at: definition, in: variable.group)
        placeholder(variable.name, text: variable.name, from: offset)
    }
}
