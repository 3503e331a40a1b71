import SnippetsCore

/// The library and its index in service: immutable, replaced whole by a reload, so a completion never sees a
/// half-built index and never waits for one.
public struct LibrarySnapshot: Sendable {
    /// The snippets in service (broken files keep their last good snippets).
    public let library: SnippetLibrary
    /// The token index over `library`; nil only for the empty snapshot before the first load.
    public let index: TokenIndex?
    /// Counts loads, starting at 0 for the empty snapshot.
    public let generation: Int
    /// What the user taught ask (see `LearnedWords`); `.none` while learning is off.
    public let learned: LearnedWords
    /// Bodies as completion renders them, filled on first use (they belong to this library, so a reload starts
    /// afresh).
    public let renderedBodies = RenderedBodies()
    /// What an ask needs about the whole library (scope counts, titles by their words), computed once for this
    /// library, so an ask costs the same at any library size.
    public let askFacts: AskLibraryFacts
    /// Set when this holds only the files documents of this language need, read for completion before the first
    /// load is in service (`LibraryService.completionSnapshot(forLanguage:within:)`); it is never put in service
    /// and serves nothing but completion in that language. Nil for the library in service.
    public let language: String?

    public init(library: SnippetLibrary, index: TokenIndex?, generation: Int, learned: LearnedWords = .none, language: String? = nil) {
        self.library = library
        self.index = index
        self.generation = generation
        self.learned = learned
        self.language = language
        self.askFacts = AskLibraryFacts(library: library)
    }

    /// Before the first load.
    public static let empty = LibrarySnapshot(library: .empty, index: nil, generation: 0)
}

/// Keeps the last good version of each snippet file, so an edit that breaks a file does not take its snippets out
/// of service. Pure: a value that turns a freshly loaded library into the one to serve.
public struct LastGoodFiles: Sendable {
    private var files: [String: SnippetFile] = [:]

    /// No file seen yet.
    public init() {}

    /// The library to serve for `loaded`: every file that has errors and had a good version before gets that
    /// version's snippets back (its new diagnostics stay, so they can be shown). Files without errors become the
    /// new good versions; files no longer present are forgotten.
    public mutating func serving(_ loaded: SnippetLibrary) -> SnippetLibrary {
        var served = loaded
        var seen: Set<String> = []
        for file in loaded.files {
            seen.insert(file.uri)
            if file.hasErrors {
                if var good = files[file.uri] {
                    good.diagnostics = file.diagnostics
                    served = served.replacing(good)
                }
            } else {
                files[file.uri] = file
            }
        }
        files = files.filter { seen.contains($0.key) }
        return served
    }
}
