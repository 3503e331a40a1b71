/// What the loader decided about a snippet file from where it found it: enough to read that one file again later
/// (on a change notification) exactly as the full load read it.
public struct SnippetFileContext: Hashable, Sendable {
    /// A file that is one snippet, whose trigger (and description) its path gives (SnipMate's `*.snippet`).
    public struct PathSnippet: Hashable, Sendable {
        public var trigger: String
        public var description: String?

        public init(trigger: String, description: String? = nil) {
            self.trigger = trigger
            self.description = description
        }
    }

    /// Which entry of `FormatRegistry` reads the file.
    public var format: SnippetFormat
    /// Set when the whole file is the body of one snippet named by its path; nil for a file of many snippets.
    public var pathSnippet: PathSnippet?
    /// Scopes every snippet of the file gets, decided by the file's name (`go.json`, `python.snippets`) or by a
    /// `package.json` manifest. Nil means the file's own `scope` fields decide (`*.code-snippets`); empty means global.
    public var scopes: [String]?
    /// Whether the file is a project file (`.vscode/*.code-snippets` under a workspace root).
    public var isProjectFile: Bool
    /// The name of the library layer the file belongs to (empty when read outside a layer).
    public var layer: String = ""
    /// The major mode a yasnippet file belongs to (its folder under `snippets/`); nil for other formats.
    public var mode: String?
    /// Whether a snippet without a trigger of its own takes the file's name as trigger (yasnippet's rule; off under
    /// `.yas-ignore-filenames-as-triggers`).
    public var namesAreTriggers = true

    public init(format: SnippetFormat, scopes: [String]?, pathSnippet: PathSnippet? = nil, isProjectFile: Bool = false) {
        self.format = format
        self.scopes = scopes
        self.pathSnippet = pathSnippet
        self.isProjectFile = isProjectFile
    }

    /// Whether the file may hold snippets, or `extends`, for a document whose scopes are `scopes` (a language and
    /// what it pulls in), as far as its name tells before it is read: a file of other languages' scopes cannot. A
    /// global file, one whose own fields give the scopes (`*.code-snippets`) and a yasnippet `prog-mode` file (its
    /// `extends` reach every programming language) always may.
    public func mayApply(toScopes scopes: Set<String>) -> Bool {
        guard let own = self.scopes, !own.isEmpty else { return true }
        if format == .yasnippet, own.contains(YasnippetModes.programmingMode) { return true }
        return own.contains { scopes.contains($0) }
    }
}

/// Collects the diagnostics of one file, converting UTF-8 offsets to positions through the file's `LineTable`.
struct DiagnosticSink {
    let uri: String
    let table: LineTable
    private(set) var diagnostics: [LibraryDiagnostic] = []

    init(uri: String, table: LineTable) {
        self.uri = uri
        self.table = table
    }

    mutating func add(_ severity: LibraryDiagnostic.Severity, _ code: DiagnosticCode, _ message: String, at offset: Int) {
        diagnostics.append(
            LibraryDiagnostic(
                uri: uri, position: table.position(ofUTF8Offset: offset), severity: severity, code: code,
                message: message))
    }

    /// The most problems reported for one body; the rest are counted in one more diagnostic. A hostile body with a
    /// problem every few bytes cannot make a file's diagnostics (or `check`'s output) grow with its size.
    static let bodyProblemLimit = 50

    /// Reports the problems the body grammar found (at most `bodyProblemLimit`, then a count of the rest), placed in
    /// the file through `map`.
    mutating func addBodyProblems(_ problems: [SnippetBodyProblem], title: String, map: BodySourceMap) {
        for problem in problems.prefix(Self.bodyProblemLimit) {
            add(
                problem.severity, problem.code, "\(problem.message) (in snippet '\(title)')",
                at: map.sourceOffset(ofBodyUTF16: problem.utf16Offset, in: table))
        }
        guard problems.count > Self.bodyProblemLimit else { return }
        let rest = problems[Self.bodyProblemLimit...]
        add(
            rest.contains { $0.severity == .error } ? .error : .warning, .moreBodyProblems,
            "\(rest.count) more problems in snippet '\(title)' are not listed; fix the ones above first",
            at: map.sourceOffset(ofBodyUTF16: rest.first!.utf16Offset, in: table))
    }

    func range(_ utf8Range: Range<Int>) -> SourceRange {
        SourceRange(start: table.position(ofUTF8Offset: utf8Range.lowerBound), end: table.position(ofUTF8Offset: utf8Range.upperBound))
    }
}

/// Finds the problems in a snippet body (LSP snippet syntax); the loader's one hook into the body grammar.
public typealias SnippetBodyChecker = @Sendable (String) -> [SnippetBodyProblem]
