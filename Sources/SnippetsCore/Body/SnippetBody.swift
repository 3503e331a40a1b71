// API surface agreed between targets; the grammar work fills in the implementation.

/// A parsed snippet body (LSP / TextMate snippet grammar).
public struct SnippetBody: Hashable, Sendable {
    public var elements: [SnippetElement]

    public init(elements: [SnippetElement]) {
        self.elements = elements
    }

    /// Parses `text`; never fails: malformed parts are kept as literal text and reported as problems.
    public static func parse(_ text: String) -> SnippetBodyParse {
        var parser = SnippetBodyParser(text)
        return parser.parse()
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

    /// Plain text for clients without snippet support: placeholders become their defaults, choices their first
    /// option, variables their value from `resolve`, else their default, else nothing.
    public func plainText(resolving resolve: (String) -> String? = { _ in nil }) -> String {
        withoutActuallyEscaping(resolve) { resolve in
            var renderer = SnippetPlainRenderer(body: self, resolve: resolve)
            return renderer.render(elements)
        }
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

/// `/regex/format/options` of a transform, kept as written.
public struct SnippetTransform: Hashable, Sendable {
    public var regex: String
    public var format: String
    public var options: String

    public init(regex: String, format: String, options: String) {
        self.regex = regex
        self.format = format
        self.options = options
    }
}

/// The result of parsing a body: the tree, and what was wrong with the text.
public struct SnippetBodyParse: Hashable, Sendable {
    public var body: SnippetBody
    public var problems: [SnippetBodyProblem]

    public init(body: SnippetBody, problems: [SnippetBodyProblem]) {
        self.body = body
        self.problems = problems
    }
}

/// A problem in a body, at a UTF-16 offset into the body text (the loader maps it to a file position).
public struct SnippetBodyProblem: Hashable, Sendable {
    public var utf16Offset: Int
    public var severity: LibraryDiagnostic.Severity
    public var code: String
    public var message: String

    public init(utf16Offset: Int, severity: LibraryDiagnostic.Severity, code: String, message: String) {
        self.utf16Offset = utf16Offset
        self.severity = severity
        self.code = code
        self.message = message
    }
}
