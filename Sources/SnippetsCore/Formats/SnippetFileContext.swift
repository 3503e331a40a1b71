/// What the loader decided about a snippet file from where it found it: enough to read that one file again later
/// (on a change notification) exactly as the full load read it.
public struct SnippetFileContext: Hashable, Sendable {
    /// Which reader handles the file.
    public enum Kind: Hashable, Sendable {
        /// VS Code JSON (`*.json`, `*.code-snippets`).
        case vscode
        /// A SnipMate `*.snippets` file holding many snippets.
        case snipmateFile
        /// A SnipMate `*.snippet` file: the whole file is the body of one snippet.
        case snipmateSingle(trigger: String, description: String?)
        /// A yasnippet file: one snippet of the major mode `mode` (the folder under the snippets root). Without
        /// `filenamesAsTriggers` (`.yas-ignore-filenames-as-triggers`) a snippet without `# key:` has no trigger.
        case yasnippet(mode: String, filenamesAsTriggers: Bool)
        /// A yasnippet `.yas-parents` file: the modes whose snippets `mode` also gets.
        case yasnippetParents(mode: String)
    }

    public var kind: Kind
    /// Scopes every snippet of the file gets, decided by the file's name (`go.json`, `python.snippets`) or by a
    /// `package.json` manifest. Nil means the file's own `scope` fields decide (`*.code-snippets`); empty means global.
    public var scopes: [String]?
    /// Whether the file is a project file (`.vscode/*.code-snippets` under a workspace root).
    public var isProjectFile: Bool
    /// The name of the library layer the file belongs to (empty when read outside a layer).
    public var layer: String = ""

    public init(kind: Kind, scopes: [String]?, isProjectFile: Bool = false) {
        self.kind = kind
        self.scopes = scopes
        self.isProjectFile = isProjectFile
    }

    /// The format this context reads.
    public var format: SnippetFormat {
        switch kind {
        case .vscode: .vscode
        case .snipmateFile, .snipmateSingle: .snipmate
        case .yasnippet, .yasnippetParents: .yasnippet
        }
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

    mutating func add(_ severity: LibraryDiagnostic.Severity, _ code: String, _ message: String, at offset: Int) {
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
            rest.contains { $0.severity == .error } ? .error : .warning, "more-body-problems",
            "\(rest.count) more problems in snippet '\(title)' are not listed; fix the ones above first",
            at: map.sourceOffset(ofBodyUTF16: rest.first!.utf16Offset, in: table))
    }

    func range(_ utf8Range: Range<Int>) -> SourceRange {
        SourceRange(start: table.position(ofUTF8Offset: utf8Range.lowerBound), end: table.position(ofUTF8Offset: utf8Range.upperBound))
    }
}

/// Finds the problems in a snippet body (LSP snippet syntax); the loader's one hook into the body grammar.
public typealias SnippetBodyChecker = @Sendable (String) -> [SnippetBodyProblem]
