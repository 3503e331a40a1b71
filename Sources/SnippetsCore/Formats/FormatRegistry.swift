/// The snippet file formats the loader reads, in the order they are asked: the one place a format is listed.
///
/// Adding a format is one `SnippetFileFormat` (declared beside its reader, in a folder of its own) and one line in
/// `all`. Everything else asks the registry: the loader which files to read and with which reader
/// (`context(forFileAt:root:)`, `format(_:)`), the server which globs to watch (`watchGlobs`), git revisions which
/// index entries may be snippet files (`mayBeSnippetFile(named:)`), and error messages which files are expected
/// (`expectedFileNames`).
public enum FormatRegistry {
    /// Every format, in the order a file is offered to them: the first whose `recognize` takes a file reads it, so
    /// a format recognised by its place (UltiSnips' `UltiSnips/*.snippets`) comes before one that takes the same
    /// names anywhere (SnipMate's `*.snippets`).
    public static let all: [SnippetFileFormat] = [.vscode, .ultiSnips, .snipMate, .espanso, .yasnippet]

    /// The entry for `format`; every `SnippetFormat` a context or file carries comes from one of `all`.
    public static func format(_ format: SnippetFormat) -> SnippetFileFormat {
        all.first { $0.format == format } ?? .vscode
    }

    /// How a file found while walking `root` is read, from its name and place; nil when no format reads it.
    public static func context(forFileAt path: String, root: String) -> SnippetFileContext? {
        for entry in all {
            if let context = entry.recognize(path, root) { return context }
        }
        return nil
    }

    /// Hidden files (`.…`) some format reads (yasnippet's `.yas-parents`); the walk skips every other hidden entry.
    public static let hiddenFileNames: Set<String> = Set(all.flatMap(\.hiddenFileNames))

    /// What the formats make of a directory from its entries' names: whether it is skipped (yasnippet's
    /// `.yas-skip`), and the changes to the contexts of the files under it (`.yas-ignore-filenames-as-triggers`).
    static func directoryRules(_ directory: String, names: [String], root: String) -> DirectoryRule {
        var combined = DirectoryRule()
        for entry in all {
            guard let rule = entry.directoryRule?(directory, names, root) else { continue }
            combined.skips = combined.skips || rule.skips
            combined.changes += rule.changes
        }
        return combined
    }

    /// The context a file is read with once its text is known: another format may claim a file by its content (a
    /// `.snippets` file of UltiSnips entries outside an `UltiSnips` folder), else `context` stands.
    static func context(_ context: SnippetFileContext, claimedBy text: String) -> SnippetFileContext {
        for entry in all where entry.format != context.format {
            if let claimed = entry.claim?(context, text) { return claimed }
        }
        return context
    }

    /// The globs, relative to a library directory, that the client is asked to watch: every file (`**/*`) when any
    /// format reads a file by its place (a folder renamed changes how the files under it are read, and a glob on
    /// names matches no folder), else the formats' own globs.
    public static var watchGlobs: [String] {
        if all.contains(where: \.readsByPlace) { return ["**/*"] }
        var globs: [String] = []
        for glob in all.flatMap(\.watchGlobs) where !globs.contains(glob) { globs.append(glob) }
        return globs
    }

    /// The name endings a snippet file may have, each once, in registry order (`.json`, `.code-snippets`, …).
    public static var nameSuffixes: [String] {
        var suffixes: [String] = []
        for suffix in all.flatMap({ $0.nameSuffixes ?? [] }) where !suffixes.contains(suffix) { suffixes.append(suffix) }
        return suffixes
    }

    /// The suffixes as bytes, for scanning a git index without making a string per entry.
    static let nameSuffixBytes: [[UInt8]] = nameSuffixes.map { Array($0.utf8) }

    /// Whether a file whose name (or path) is `name` may be a snippet file: it ends with one of `nameSuffixes`, or
    /// some format reads files of any name. A cheap filter before `context(forFileAt:root:)`.
    public static func mayBeSnippetFile(named name: some Collection<UInt8>) -> Bool {
        if all.contains(where: { $0.nameSuffixes == nil }) { return true }
        return nameSuffixBytes.contains { suffix in
            name.count > suffix.count && name.dropFirst(name.count - suffix.count).elementsEqual(suffix)
        }
    }

    /// "…, .snippets or .snippet": the name endings a snippet file may have, for messages about a file that has none.
    public static var expectedFileNames: String {
        nameSuffixes.listed(conjunction: "or")
    }

    /// What a person adds to an empty library for snippets, every format named: "VS Code `.code-snippets` and
    /// `<language>.json` files, …, or yasnippet `<major-mode>/` folders", for the hints about an empty library.
    public static var whatToAdd: String {
        all.compactMap(\.whatToAdd).listed(conjunction: "or")
    }

    /// What `check` says about the formats of `files`: one line for each format with a `checkNote` that read any.
    public static func checkNotes(for files: [SnippetFile]) -> [String] {
        let present = Set(files.map(\.format))
        return all.compactMap { entry in
            guard present.contains(entry.format), let note = entry.checkNote else { return nil }
            return "\(entry.name): \(note)"
        }
    }
}

/// One snippet file format: how its files are recognised, read and watched, and what `check` says about it.
public struct SnippetFileFormat: Sendable {
    /// What its files and snippets record (`SnippetFile.format`), and `check --json` prints.
    public let format: SnippetFormat
    /// Its name for people: "VS Code", "SnipMate", "UltiSnips".
    public let name: String
    /// The endings of the names of the files it reads (`.code-snippets`); nil when a file of any name may be one,
    /// recognised by its place alone (yasnippet's `snippets/python-mode/for`).
    public let nameSuffixes: [String]?
    /// Globs, relative to a library directory, of the files it reads (`**/*.code-snippets`).
    public let watchGlobs: [String]
    /// Whether the folders a file lies in decide whether or how it is read (SnipMate's scope folders), so that a
    /// change to a folder must be seen as well as a change to a file.
    public let readsByPlace: Bool
    /// A line `check` prints when the library holds files of this format (what is never done with them, what is
    /// noted); nil for nothing to say.
    public let checkNote: String?
    /// What to add to a library for snippets in this format ("SnipMate and UltiSnips `.snippets` files"), for the
    /// empty library's hint; nil when another format's hint names its files already.
    public let whatToAdd: String?
    /// How a file found at `path` while walking `root` is read by this format; nil when it is not one of its files.
    let recognize: @Sendable (_ path: String, _ root: String) -> SnippetFileContext?
    /// Given a file another format recognised by name and its text, the context to read it with as this format
    /// when its content says it is one; nil to leave it.
    let claim: (@Sendable (_ context: SnippetFileContext, _ text: String) -> SnippetFileContext?)?
    /// Reads one file's text into its snippets and diagnostics (never throws; every problem is a diagnostic).
    let read: @Sendable (_ source: SnippetFileSource) -> SnippetFileReading
    /// Hidden files (`.…`) it reads, which the walk would otherwise skip.
    let hiddenFileNames: Set<String>
    /// What a directory's entries (`names`) say about reading it and the files under it; nil for nothing.
    let directoryRule: (@Sendable (_ directory: String, _ names: [String], _ root: String) -> DirectoryRule?)?
    /// How it writes a body line in its files, so that a quote can be found there and read back.
    let bodyQuoting: BodyQuoting
    /// Whether a file of another may name one of its files to be read with it (espanso's `imports`): the loader then
    /// reads its files through the load's `RelatedFiles`, so such a file is read once, as itself and as named.
    let isNamedByOtherFiles: Bool

    init(
        format: SnippetFormat, name: String, nameSuffixes: [String]?, watchGlobs: [String], readsByPlace: Bool,
        checkNote: String? = nil, whatToAdd: String?,
        recognize: @escaping @Sendable (_ path: String, _ root: String) -> SnippetFileContext?,
        claim: (@Sendable (_ context: SnippetFileContext, _ text: String) -> SnippetFileContext?)? = nil,
        read: @escaping @Sendable (_ source: SnippetFileSource) -> SnippetFileReading,
        hiddenFileNames: Set<String> = [],
        directoryRule: (@Sendable (_ directory: String, _ names: [String], _ root: String) -> DirectoryRule?)? = nil,
        bodyQuoting: BodyQuoting = .asWritten, isNamedByOtherFiles: Bool = false
    ) {
        self.bodyQuoting = bodyQuoting
        self.isNamedByOtherFiles = isNamedByOtherFiles
        self.hiddenFileNames = hiddenFileNames
        self.directoryRule = directoryRule
        self.format = format
        self.name = name
        self.nameSuffixes = nameSuffixes
        self.watchGlobs = watchGlobs
        self.readsByPlace = readsByPlace
        self.checkNote = checkNote
        self.whatToAdd = whatToAdd
        self.recognize = recognize
        self.claim = claim
        self.read = read
    }
}

/// How one format writes a body line in its files, for quoting (`QuoteFinder`): from a line of the body's LSP text
/// to the file's text for it (to find the line in its entry), and back (to read what a quote's range holds).
struct BodyQuoting: Sendable {
    /// The file's text for a body line (LSP snippet syntax), as the format most likely writes it.
    let written: @Sendable (_ line: String) -> String
    /// The LSP snippet text that a piece of one body line stands for, given as the file writes it; nil when the
    /// piece cannot be read on its own.
    let bodyText: @Sendable (_ written: String) -> String?

    /// LSP snippet syntax, written as is.
    static let asWritten = BodyQuoting(written: { $0 }, bodyText: { $0 })
}

/// One snippet file as a reader gets it: its bytes, checked to be UTF-8 text without NUL bytes, and how it is read.
struct SnippetFileSource {
    var bytes: [UInt8]
    var text: String
    var uri: String
    var path: String
    var context: SnippetFileContext
    /// How bodies are checked; nil skips checking.
    var checkBody: SnippetBodyChecker?
    /// Other files this one names (espanso's `imports`, `_manifest.yml`), read through the loader's file system and
    /// size limit, once per load.
    var related = RelatedFiles { _ in .unreadable("no file system to read it from") }
    /// A path with links and `.`/`..` resolved, through the loader's file system.
    var canonicalPath: @Sendable (_ path: String) -> String? = { $0 }
}

/// Another file a snippet file names, as `SnippetFileSource.readRelated` found it.
enum RelatedFile {
    /// Its UTF-8 text (without NUL bytes) and its path with links resolved.
    case text(String, canonicalPath: String)
    /// Why it could not be read.
    case unreadable(String)
}

/// What a reader made of one file: its snippets and diagnostics, and the overrides the loader applies across files
/// once every file is read (SnipMate's `snippet!`).
struct SnippetFileReading {
    var file: SnippetFile
    var overrides: [SnippetOverride] = []
}

/// A header that replaces or removes snippets read before it (SnipMate's `snippet!` and `snippet!!`), resolved
/// against earlier files by the loader.
struct SnippetOverride: Sendable {
    enum Kind: Sendable {
        /// `snippet!` (with `snippetIndex`) or `snippet!!`: every earlier snippet with the trigger in the scopes.
        case replace
        /// UltiSnips' `clearsnippets`: the snippets of the same format, in any file and wherever they are, with the
        /// trigger (every trigger when `trigger` is empty) in the scopes whose priority is at most `priority`.
        case clear(priority: Int)
    }

    var kind: Kind = .replace
    /// Index of the overriding snippet in the file's snippets; nil for a removal, which adds nothing.
    var snippetIndex: Int?
    var trigger: String
    var scopes: [String]
    /// Where the header is.
    var position: SourcePosition
}

/// What a format makes of one directory from its entries' names.
struct DirectoryRule {
    /// The directory is not read at all.
    var skips = false
    /// Changes to the context of every file read under the directory, with the format whose files they change.
    var changes: [(format: SnippetFormat, change: @Sendable (SnippetFileContext) -> SnippetFileContext)] = []
}
