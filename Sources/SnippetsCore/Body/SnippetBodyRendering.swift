/// Serializes a tree back to LSP snippet text, escaping each context the way the LSP grammar requires.
struct SnippetLSPWriter {
    /// A piece of output; a bare `$1` / `$NAME` must take braces when a name character follows it.
    private enum Piece {
        case raw(String)
        case bare(String)
    }

    let resolve: (String) -> String?
    /// What the server does because the client cannot (see `SnippetEngine`).
    var options = Options()
    private var pieces: [Piece] = []
    /// What this body's variable transforms may spend in all.
    private let regexBudget = RegexBudget(ticks: RegexBudget.perSnippet)

    /// How far the writer renders on the client's behalf. The defaults keep everything for the client.
    struct Options {
        /// Known variables without a value become their default (or nothing), and variable transforms run on the
        /// value or the empty string, as VS Code does: for clients that resolve no variables themselves.
        var serverResolvesVariables = false
        /// `${1|a,b|}` becomes `${1:a}`: for clients without choices.
        var choicesAsPlaceholders = false
        /// `${1/re/fmt/}` becomes `$1` (the typed text mirrored unchanged): for clients without transforms.
        var tabstopTransformsAsMirrors = false
        /// What yasnippet would run is escaped: backquotes everywhere, and `$` in choice options (yasnippet reads a
        /// choice as a field, where `$(…)` is Emacs Lisp). `$` in text is escaped for every engine.
        var escapesCode = false
    }

    init(resolve: @escaping (String) -> String?, options: Options = Options()) {
        self.resolve = resolve
        self.options = options
    }

    mutating func write(_ elements: [SnippetElement]) {
        for element in elements { write(element) }
    }

    private mutating func text(_ text: String) {
        pieces.append(.raw(Self.escapeText(text, backticks: options.escapesCode)))
    }

    private mutating func write(_ element: SnippetElement) {
        switch element {
        case .text(let value):
            text(value)
        case .tabstop(let number):
            pieces.append(.bare(String(number)))
        case .placeholder(let number, let children):
            pieces.append(.raw("${\(number):"))
            write(children)
            pieces.append(.raw("}"))
        case .choice(let number, let options):
            if self.options.choicesAsPlaceholders {
                pieces.append(.raw("${\(number):"))
                text(options.first ?? "")
                pieces.append(.raw("}"))
            } else {
                let escape = { (option: String) in
                    Self.escapeChoiceOption(option, forYasnippet: self.options.escapesCode)
                }
                pieces.append(.raw("${\(number)|" + options.map(escape).joined(separator: ",") + "|}"))
            }
        case .variable(let name, let defaultElements):
            if let value = resolve(name) {
                text(value)
            } else if options.serverResolvesVariables {
                write(defaultElements ?? [])
            } else if let defaultElements {
                pieces.append(.raw("${\(name):"))
                write(defaultElements)
                pieces.append(.raw("}"))
            } else {
                pieces.append(.bare(name))
            }
        case .transform(let target, let transform):
            switch target {
            case .tabstop(let number):
                if options.tabstopTransformsAsMirrors {
                    pieces.append(.bare(String(number)))
                } else {
                    pieces.append(.raw("${\(number)/\(transform.regex)/\(transform.format)/\(transform.options)}"))
                }
            case .variable(let name):
                let value = resolve(name)
                if value != nil || options.serverResolvesVariables, let transformed = transform.apply(to: value ?? "", budget: regexBudget) {
                    text(transformed)
                } else {
                    pieces.append(.raw("${\(name)/\(transform.regex)/\(transform.format)/\(transform.options)}"))
                }
            }
        }
    }

    func finish() -> String {
        var result = ""
        for (offset, piece) in pieces.enumerated() {
            switch piece {
            case .raw(let text):
                result += text
            case .bare(let reference):
                let next = pieces[(offset + 1)...].lazy.compactMap { piece -> Character? in
                    switch piece {
                    case .raw(let text): text.first
                    case .bare: "$"
                    }
                }.first
                if let next, next == "_" || (next.isASCII && (next.isLetter || next.isNumber)) {
                    result += "${\(reference)}"
                } else {
                    result += "$" + reference
                }
            }
        }
        return result
    }

    /// Text outside choices: `$`, `}` and `\` are escaped with a backslash (and `` ` `` for yasnippet).
    static func escapeText(_ text: String, backticks: Bool = false) -> String {
        func escaped(_ character: Character) -> Bool {
            character == "$" || character == "}" || character == "\\" || (backticks && character == "`")
        }
        guard text.contains(where: escaped) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 4)
        for character in text {
            if escaped(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// A choice option: `,`, `|` and `\` are escaped (a `$` or `}` is literal there), and `` ` `` and `$` for
    /// yasnippet, which has no choices and would read `$(…)` in one as Emacs Lisp.
    static func escapeChoiceOption(_ option: String, forYasnippet: Bool = false) -> String {
        var result = ""
        for character in option {
            if character == "," || character == "|" || character == "\\"
                || (forYasnippet && (character == "`" || character == "$"))
            {
                result.append("\\")
            }
            result.append(character)
        }
        return result
    }
}

/// Renders a tree as the text a user gets by accepting every default (and tabbing through every stop, so
/// transforms of tabstops are applied), as VS Code would insert it.
struct SnippetPlainRenderer {
    let resolve: (String) -> String?
    /// Unknown variables become placeholders holding their name first (VS Code's snippet loader); off, the text is
    /// that of VS Code's parser alone, where an unresolved variable inserts nothing.
    var unknownVariablesAsNames = true
    /// The first option of each choice, for tabstops that mirror it.
    private var choiceValues: [Int: String] = [:]
    /// Each tabstop's value (its first placeholder's children), for transforms of it.
    private var defaults: [Int: [SnippetElement]] = [:]
    /// Tabstops whose value is being rendered, so `${1:a ${1/x/y/}}` cannot recurse forever.
    private var rendering: Set<Int> = []
    /// What this body's transforms may spend in all: past it each shows its value unapplied.
    private let regexBudget = RegexBudget(ticks: RegexBudget.perSnippet)

    init(resolve: @escaping (String) -> String?) {
        self.resolve = resolve
    }

    /// The plain text of `body`: unknown variables made placeholders holding their name (as VS Code's snippet loader
    /// does, unless `unknownVariablesAsNames` is off) and shared tabstop values filled in first.
    mutating func render(body: SnippetBody) -> String {
        let loaded = unknownVariablesAsNames ? body.withUnknownVariablesAsPlaceholders() : body
        let shared = loaded.withSharedTabstopValues()
        var choiceValues: [Int: String] = [:]
        var defaults: [Int: [SnippetElement]] = [:]
        func collect(_ elements: [SnippetElement]) {
            for element in elements {
                switch element {
                case .choice(let number, let options):
                    if choiceValues[number] == nil, let first = options.first { choiceValues[number] = first }
                case .placeholder(let number, let children):
                    if number != 0, defaults[number] == nil, !children.isEmpty { defaults[number] = children }
                    collect(children)
                case .variable(_, let defaultElements): collect(defaultElements ?? [])
                case .text, .tabstop, .transform: break
                }
            }
        }
        collect(shared.elements)
        self.choiceValues = choiceValues
        self.defaults = defaults
        return render(shared.elements)
    }

    mutating func render(_ elements: [SnippetElement]) -> String {
        var result = ""
        for element in elements { result += render(element) }
        return result
    }

    private mutating func render(_ element: SnippetElement) -> String {
        switch element {
        case .text(let text):
            return text
        case .tabstop(let number):
            return number == 0 ? "" : choiceValues[number] ?? ""
        case .placeholder(_, let children):
            return render(children)
        case .choice(_, let options):
            return options.first ?? ""
        case .variable(let name, let defaultElements):
            if let value = resolve(name) { return value }
            if let defaultElements { return render(defaultElements) }
            // A variable without a value (no selection, an unsaved file, an unknown name VS Code's loader leaves,
            // inside another variable's default) inserts nothing.
            return ""
        case .transform(.tabstop(let number), let transform):
            let value = tabstopText(number)
            return transform.apply(to: value, budget: regexBudget) ?? value
        case .transform(.variable(let name), let transform):
            // VS Code runs the transform on the empty string when the variable has no value.
            return transform.apply(to: resolve(name) ?? "", budget: regexBudget) ?? ""
        }
    }

    /// The text tabstop `number` ends up with (for a transform of it): its first placeholder's, else its choice's.
    private mutating func tabstopText(_ number: Int) -> String {
        guard number != 0, !rendering.contains(number) else { return "" }
        if let value = defaults[number] {
            rendering.insert(number)
            defer { rendering.remove(number) }
            return render(value)
        }
        return choiceValues[number] ?? ""
    }
}

/// Markdown helpers for previews.
public enum SnippetMarkdown {
    /// `text` in a fence longer than any backtick run inside it, tagged with `language` when there is one.
    public static func fencedCodeBlock(_ text: String, language: String?) -> String {
        var longestRun = 0
        var run = 0
        for character in text {
            run = character == "`" ? run + 1 : 0
            longestRun = max(longestRun, run)
        }
        let fence = String(repeating: "`", count: max(3, longestRun + 1))
        // An info string may not contain backticks or break the line; keep its first word.
        let tag = (language ?? "").split(whereSeparator: { $0.isWhitespace || $0 == "`" }).first.map(String.init) ?? ""
        let body = text.isEmpty || text.hasSuffix("\n") ? text : text + "\n"
        return fence + tag + "\n" + body + fence
    }
}
