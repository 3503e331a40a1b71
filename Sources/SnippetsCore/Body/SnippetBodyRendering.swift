/// Serializes a tree back to LSP snippet text, escaping each context the way the LSP grammar requires.
struct SnippetLSPWriter {
    /// A piece of output; a bare `$1` / `$NAME` must take braces when a name character follows it.
    private enum Piece {
        case raw(String)
        case bare(String)
    }

    let resolve: (String) -> String?
    private var pieces: [Piece] = []

    init(resolve: @escaping (String) -> String?) {
        self.resolve = resolve
    }

    mutating func write(_ elements: [SnippetElement]) {
        for element in elements { write(element) }
    }

    private mutating func write(_ element: SnippetElement) {
        switch element {
        case .text(let text):
            pieces.append(.raw(Self.escapeText(text)))
        case .tabstop(let number):
            pieces.append(.bare(String(number)))
        case .placeholder(let number, let children):
            pieces.append(.raw("${\(number):"))
            write(children)
            pieces.append(.raw("}"))
        case .choice(let number, let options):
            pieces.append(.raw("${\(number)|" + options.map(Self.escapeChoiceOption).joined(separator: ",") + "|}"))
        case .variable(let name, let defaultElements):
            if let value = resolve(name) {
                pieces.append(.raw(Self.escapeText(value)))
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
                pieces.append(.raw("${\(number)/\(transform.regex)/\(transform.format)/\(transform.options)}"))
            case .variable(let name):
                if let value = resolve(name), let transformed = transform.apply(to: value) {
                    pieces.append(.raw(Self.escapeText(transformed)))
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

    /// Text outside choices: `$`, `}` and `\` are escaped with a backslash.
    static func escapeText(_ text: String) -> String {
        guard text.contains(where: { $0 == "$" || $0 == "}" || $0 == "\\" }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 4)
        for character in text {
            if character == "$" || character == "}" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// A choice option: `,`, `|` and `\` are escaped (a `$` or `}` is literal there).
    static func escapeChoiceOption(_ option: String) -> String {
        var result = ""
        for character in option {
            if character == "," || character == "|" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result
    }
}

/// Renders a tree as the text a user gets by accepting every default.
struct SnippetPlainRenderer {
    let resolve: (String) -> String?
    /// What each tabstop number stands for, as VS Code decides it: the first placeholder (in document order) that
    /// has a default, or a choice's first option. It fills every tabstop and placeholder of that number except `$0`.
    private let values: [Int: [SnippetElement]]
    /// Tabstops whose value is being rendered, so `${1:a $1}` cannot recurse forever.
    private var rendering: Set<Int> = []

    init(body: SnippetBody, resolve: @escaping (String) -> String?) {
        self.resolve = resolve
        var values: [Int: [SnippetElement]] = [:]
        func collect(_ elements: [SnippetElement]) {
            for element in elements {
                switch element {
                case .placeholder(let number, let children):
                    if number != 0, values[number] == nil, !children.isEmpty { values[number] = children }
                    collect(children)
                case .choice(let number, let options):
                    if number != 0, values[number] == nil, let first = options.first { values[number] = [.text(first)] }
                case .variable(_, let defaultElements):
                    collect(defaultElements ?? [])
                case .text, .tabstop, .transform:
                    break
                }
            }
        }
        collect(body.elements)
        self.values = values
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
            return mirror(number, own: [])
        case .placeholder(let number, let children):
            return mirror(number, own: children)
        case .choice(_, let options):
            return options.first ?? ""
        case .variable(let name, let defaultElements):
            if let value = resolve(name) { return value }
            return defaultElements.map { render($0) } ?? ""
        case .transform(.tabstop(let number), let transform):
            let value = mirror(number, own: [])
            return transform.apply(to: value) ?? value
        case .transform(.variable(let name), let transform):
            guard let value = resolve(name) else { return "" }
            return transform.apply(to: value) ?? value
        }
    }

    /// The text of tabstop or placeholder `number`: the value all of that number share, else `own` default.
    private mutating func mirror(_ number: Int, own: [SnippetElement]) -> String {
        guard !rendering.contains(number) else { return "" }
        rendering.insert(number)
        defer { rendering.remove(number) }
        return render(values[number] ?? own)
    }
}

/// Markdown helpers for previews.
enum SnippetMarkdown {
    /// `text` in a fence longer than any backtick run inside it, tagged with `language` when there is one.
    static func fencedCodeBlock(_ text: String, language: String?) -> String {
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
