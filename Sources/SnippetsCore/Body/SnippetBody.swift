// API surface agreed between targets. The parser is in SnippetBodyParser.swift, the renderers in
// SnippetBodyRendering.swift, transforms in SnippetTransformApplication.swift, variables in SnippetVariables.swift.

/// A parsed snippet body (LSP / TextMate snippet grammar).
public struct SnippetBody: Hashable, Sendable {
    /// The top-level nodes; adjacent text is always merged into one `.text`, so equal bodies have equal trees.
    public var elements: [SnippetElement]

    /// A body made of `elements`.
    public init(elements: [SnippetElement]) {
        self.elements = elements
    }

    /// Parses `text`; never fails: malformed parts are kept as literal text and reported as problems.
    public static func parse(_ text: String) -> SnippetBodyParse {
        var parser = SnippetBodyParser(text)
        return parser.parse()
    }

    /// The problems `parse(_:)` finds in `text`, without building the text of its elements (what a library load
    /// needs of every body).
    public static func problems(in text: String) -> [SnippetBodyProblem] {
        // Every problem is found at a `$`: a body without one is plain text.
        guard text.utf8.contains(UInt8(ascii: "$")) else { return [] }
        var parser = SnippetBodyParser(text, keepsText: false)
        return parser.parse().problems
    }

    /// LSP snippet text (`InsertTextFormat.Snippet`). Variables `resolve` knows become (escaped) text;
    /// the others stay variables for the client. Tabstops, placeholders and choices always stay.
    public func lspText(resolving resolve: (String) -> String? = { _ in nil }) -> String {
        withoutActuallyEscaping(resolve) { resolve in
            var writer = SnippetLSPWriter(resolve: resolve)
            writer.write(elements)
            return writer.finish()
        }
    }

    /// Plain text for clients without snippet support, as VS Code inserts the snippet when every default is
    /// accepted: each tabstop takes the value of its first placeholder with a default (`withSharedTabstopValues`),
    /// choices their first option, variables their value from `resolve`, else their default, else nothing for a
    /// known variable and its name for an unknown one; transforms run on the value (the empty string when unset).
    public func plainText(resolving resolve: (String) -> String? = { _ in nil }) -> String {
        plainText(resolving: resolve, unknownVariablesAsNames: true)
    }

    /// `plainText(resolving:)`; with `unknownVariablesAsNames` false, an unknown variable inserts nothing, as the
    /// text of VS Code's parser alone (`SnippetParser.asInsertText`) has it, before its snippet loader turns such a
    /// variable into a placeholder.
    func plainText(resolving resolve: (String) -> String?, unknownVariablesAsNames: Bool) -> String {
        withoutActuallyEscaping(resolve) { resolve in
            var renderer = SnippetPlainRenderer(resolve: resolve)
            renderer.unknownVariablesAsNames = unknownVariablesAsNames
            return renderer.render(body: self)
        }
    }

    /// LSP snippet text that inserts `text` literally (`$`, `}` and `\` escaped).
    public static func escaped(_ text: String) -> String {
        SnippetLSPWriter.escapeText(text)
    }

    /// Whether the body has any tabstop, placeholder, choice, variable or transform (else it is plain text).
    public var hasSnippetSyntax: Bool {
        elements.contains { if case .text = $0 { false } else { true } }
    }

    /// The variable names the body uses (in defaults and transforms too), in order of first use.
    public var variableNames: [String] {
        var names: [String] = []
        var seen: Set<String> = []
        func visit(_ elements: [SnippetElement]) {
            for element in elements {
                switch element {
                case .variable(let name, let defaultElements):
                    if seen.insert(name).inserted { names.append(name) }
                    visit(defaultElements ?? [])
                case .transform(.variable(let name), _):
                    if seen.insert(name).inserted { names.append(name) }
                case .placeholder(_, let children):
                    visit(children)
                case .text, .tabstop, .choice, .transform(.tabstop, _):
                    break
                }
            }
        }
        visit(elements)
        return names
    }

    /// A Markdown preview: the plain rendering in a fenced code block tagged with `language`.
    public func markdownPreview(language: String?, resolving resolve: (String) -> String? = { _ in nil }) -> String {
        SnippetMarkdown.fencedCodeBlock(plainText(resolving: resolve), language: language)
    }
}

/// One node of a snippet body's syntax tree.
public indirect enum SnippetElement: Hashable, Sendable {
    case text(String)
    /// `$1`, `${1}`
    case tabstop(Int)
    /// `${1:default}`, possibly nested.
    case placeholder(Int, [SnippetElement])
    /// `${1|a,b|}`
    case choice(Int, [String])
    /// `$NAME`, `${NAME}`, `${NAME:default}`
    case variable(String, default: [SnippetElement]?)
    /// `${NAME/regex/format/options}` or `${1/regex/format/options}`
    case transform(SnippetTransformTarget, SnippetTransform)
}

/// What a transform applies to.
public enum SnippetTransformTarget: Hashable, Sendable {
    case tabstop(Int)
    case variable(String)
}

/// `/regex/format/options` of a transform, kept as written in the body (`\/` escapes included), so that
/// re-serializing gives back the same text; `apply(to:)` interprets it the way VS Code does.
public struct SnippetTransform: Hashable, Sendable {
    /// The regular expression (JavaScript syntax, `\/` for a slash).
    public var regex: String
    /// The replacement: text with `$1`, `${1}`, `${1:/upcase}`, `${1:+if}`, `${1:?if:else}`, `${1:-else}`.
    public var format: String
    /// Regex flags: `g` (every match), `i` (ignore case), `m` (multi-line anchors).
    public var options: String

    /// A transform from its three parts as written.
    public init(regex: String, format: String, options: String) {
        self.regex = regex
        self.format = format
        self.options = options
    }
}

/// The result of parsing a body: the tree, and what was wrong with the text.
public struct SnippetBodyParse: Hashable, Sendable {
    /// The tree; never empty of meaning: malformed parts are in it as text.
    public var body: SnippetBody
    /// What was wrong, in order of position (a construct's own problem before those inside it).
    public var problems: [SnippetBodyProblem]

    /// A parse result.
    public init(body: SnippetBody, problems: [SnippetBodyProblem]) {
        self.body = body
        self.problems = problems
    }
}

/// A problem in a body, at a UTF-16 offset into the body text (the loader maps it to a file position).
public struct SnippetBodyProblem: Hashable, Sendable {
    /// Where the offending construct starts (its `$`), in UTF-16 code units from the start of the body.
    public var utf16Offset: Int
    /// `error` for a construct that falls back to literal text, `warning` for dubious but working text.
    public var severity: LibraryDiagnostic.Severity
    /// A stable name, one of `DiagnosticCode.bodyProblems`.
    public var code: DiagnosticCode
    /// A plain sentence saying what the editor will do and how to fix it.
    public var message: String

    /// A problem at `utf16Offset`.
    public init(utf16Offset: Int, severity: LibraryDiagnostic.Severity, code: DiagnosticCode, message: String) {
        self.utf16Offset = utf16Offset
        self.severity = severity
        self.code = code
        self.message = message
    }
}
