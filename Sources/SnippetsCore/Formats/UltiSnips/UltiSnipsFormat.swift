extension SnippetFormat {
    /// UltiSnips files (`*.snippets` of `snippet … endsnippet` entries).
    public static let ultisnips = SnippetFormat(rawValue: "ultisnips")
}

extension SnippetFileFormat {
    /// UltiSnips: `*.snippets` under a folder named `UltiSnips` (scopes by SnipMate's naming rules from there), or a
    /// `.snippets` file anywhere whose entries end with `endsnippet` (claimed from SnipMate by its content).
    public static let ultiSnips = SnippetFileFormat(
        format: .ultisnips, name: "UltiSnips", nameSuffixes: [".snippets"], watchGlobs: ["**/*.snippets"],
        readsByPlace: true,
        checkNote:
            "Python, Vim script and shell code in snippets (`!p`, `!v`, backticks, global !p, context, pre_expand, "
            + "post_jump) is never run; each place is a note saying what stands in for it",
        whatToAdd: nil,  // SnipMate's hint names .snippets files for both
        recognize: { path, root in
            guard LibraryPath.name(path).hasSuffix(".snippets"), UltiSnipsReader.isUnderUltiSnipsFolder(path, root: root)
            else { return nil }
            return SnipMateReader.context(forFileAt: path, root: root, anchor: "UltiSnips", format: .ultisnips)
        },
        claim: { context, text in
            guard context.format == .snipmate, context.pathSnippet == nil, UltiSnipsReader.looksLikeUltiSnips(text)
            else { return nil }
            var claimed = context
            claimed.format = .ultisnips
            return claimed
        },
        read: { source in
            UltiSnipsReader.read(
                text: source.text, uri: source.uri, path: source.path, context: source.context, checkBody: source.checkBody)
        },
        bodyQuoting: BodyQuoting(
            written: { $0 }, bodyText: { UltiSnipsBodyConverter.convert(lines: [(text: Substring($0), offset: 0)]).text }))
}

/// The UltiSnips reader's short names for its `DiagnosticCode` cases.
enum UltiSnipsCode {
    /// Python, Vim script or shell interpolation in a body: never run; says what stands in for it.
    static let code: DiagnosticCode = .ultiSnipsCode
    /// `global !p … endglobal`: never run.
    static let global: DiagnosticCode = .ultiSnipsGlobal
    /// `context`, `pre_expand`, `post_expand`, `post_jump`, `post_finish` and the `e` option's expression: never run.
    static let action: DiagnosticCode = .ultiSnipsAction
    /// An option that a language server cannot honour as UltiSnips does (`A`, `r` without a literal prefix, `t`, `s`).
    static let option: DiagnosticCode = .ultiSnipsOption
    /// A transformation whose Python regular expression or format means something else in LSP: kept as text.
    static let transformation: DiagnosticCode = .ultiSnipsTransformation
    /// `clearsnippets`: what it removed.
    static let clear: DiagnosticCode = .ultiSnipsClear
    /// A `snippet` without its `endsnippet`.
    static let missingEnd: DiagnosticCode = .missingEndSnippet
    /// A header UltiSnips refuses (a multi-word trigger without matching delimiters).
    static let malformedHeader: DiagnosticCode = .malformedHeader
    /// A line outside a snippet that is no directive.
    static let unexpectedLine: DiagnosticCode = .unexpectedLine
    static let badPriority: DiagnosticCode = .badPriority
    static let emptyBody: DiagnosticCode = .emptyBody
    static let duplicate: DiagnosticCode = .duplicatePrefix
}
