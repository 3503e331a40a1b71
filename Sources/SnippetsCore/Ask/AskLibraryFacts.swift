import Foundation

/// What an ask needs to know about the whole library, computed once per library (not once per question): the
/// language scope names, how many snippets each scope holds, and the titles by their words. An ask then costs the
/// same in a library of 13,000 snippets as in one of 100,000, apart from the postings its words match.
///
/// Computed on first use and kept: hold one per library snapshot (`LibrarySnapshot.askFacts` in the server) and pass
/// it to every `AskPipeline` over that library.
public final class AskLibraryFacts: @unchecked Sendable {
    /// The library the facts describe.
    public let library: SnippetLibrary
    private let lock = NSLock()
    private var computed: Facts?
    /// Each snippet's evidence and quotable sentences, computed on first use and kept with the snapshot.
    let caches = AskSnapshotCaches()
    /// Meaning search over the library: its snippets' vectors as they are embedded, and its calibrated thresholds.
    public let meaning = SnapshotMeaning()

    /// Facts about `library`, computed when first needed.
    public init(library: SnippetLibrary) {
        self.library = library
    }

    /// The facts, computing them on first use (concurrent callers wait for the one computation).
    var facts: Facts {
        lock.withLock {
            if let computed { return computed }
            let facts = Facts(library: library)
            computed = facts
            return facts
        }
    }

    /// Computes the facts now (after a load, so the first ask does not pay for it); with `index` (the library's),
    /// its word neighbourhood too.
    public func prepare(index: TokenIndex? = nil) {
        _ = facts
        if let index { _ = words(index: index) }
    }

    private var neighbourhood: WordNeighbourhood?

    /// The vocabulary's typo and derived-form neighbourhood (see `WordNeighbourhood`), built from `index` (the
    /// index of this library) on first use and kept.
    func words(index: TokenIndex) -> WordNeighbourhood {
        lock.withLock {
            if let neighbourhood { return neighbourhood }
            let built = WordNeighbourhood(index: index)
            neighbourhood = built
            return built
        }
    }

    struct Facts: Sendable {
        /// Every scope name of the library, lowercased.
        let scopeNames: Set<String>
        /// Snippets that apply everywhere (no scope).
        let globalCount: Int
        let snippetCount: Int
        /// Scoped snippets grouped by their exact scope list: a library has few distinct lists, however many snippets.
        let scopeGroups: [(scopes: [String], count: Int)]
        /// Group numbers by each scope name (as written) they contain.
        let groupsByScope: [String: [Int]]
        /// Titles of two words or more by their words as `" w1 w2 "`, each with its position in the library.
        let titlesByWords: [String: [(title: String, order: Int)]]
        /// The word counts that titles in `titlesByWords` have.
        let titleWordCounts: [Int]
        /// The parts of the library that could not be read, so no ask searched them: a missing or unusable library
        /// path, an unreadable folder, a file that failed to load. Empty when everything was read.
        let unsearched: [String]

        init(library: SnippetLibrary) {
            var scopeNames: Set<String> = []
            var globalCount = 0
            var groupNumbers: [[String]: Int] = [:]
            var groups: [(scopes: [String], count: Int)] = []
            var titles: [String: [(title: String, order: Int)]] = [:]
            var seenTitles: Set<String> = []
            var wordCounts: Set<Int> = []
            for snippet in library.snippets {
                if snippet.scopes.isEmpty {
                    globalCount += 1
                } else if let number = groupNumbers[snippet.scopes] {
                    groups[number].count += 1
                } else {
                    groupNumbers[snippet.scopes] = groups.count
                    groups.append((snippet.scopes, 1))
                    for scope in snippet.scopes { scopeNames.insert(scope.lowercased()) }
                }
                // Only titles of two words or more count as "named": a title like "for" is also an ordinary word.
                if seenTitles.insert(snippet.title).inserted {
                    let words = AskText.words(in: snippet.title)
                    if words.count >= 2 {
                        titles[" " + words.joined(separator: " ") + " ", default: []].append((snippet.title, seenTitles.count))
                        wordCounts.insert(words.count)
                    }
                }
            }
            var groupsByScope: [String: [Int]] = [:]
            for (number, group) in groups.enumerated() {
                for scope in Set(group.scopes) { groupsByScope[scope, default: []].append(number) }
            }
            self.scopeNames = scopeNames
            self.globalCount = globalCount
            self.snippetCount = library.snippets.count
            self.scopeGroups = groups
            self.groupsByScope = groupsByScope
            self.titlesByWords = titles
            self.titleWordCounts = wordCounts.sorted()
            self.unsearched = Self.unsearchedParts(of: library)
        }

        /// See `unsearched`. A file with some snippets read is searched, even if others in it were refused.
        static func unsearchedParts(of library: SnippetLibrary) -> [String] {
            let unreadable = DiagnosticCode.pathProblems.union([.unreadable])
            let paths = library.loaderDiagnostics.filter { $0.severity == .error && unreadable.contains($0.code) }.map(\.message)
            let files = library.files.filter { $0.snippets.isEmpty && $0.hasErrors }.map { "'\($0.path)' failed to load" }
            return paths + files
        }

        /// How many snippets apply in `language` (every snippet when nil): as `SnippetLibrary.applies` counts them.
        func inScopeCount(language: String?, library: SnippetLibrary) -> Int {
            guard let language else { return snippetCount }
            let allowed = library.scopes(forLanguage: language)
            return globalCount + scopeGroups.reduce(0) { $0 + ($1.scopes.contains(where: allowed.contains) ? $1.count : 0) }
        }

        /// How many snippets that apply in `language` are scoped to a language named `names` (a word and its stem).
        func scopedCount(named names: [String], language: String?, library: SnippetLibrary) -> Int {
            var numbers: Set<Int> = []
            for name in names { numbers.formUnion(groupsByScope[name] ?? []) }
            guard !numbers.isEmpty else { return 0 }
            let allowed = language.map(library.scopes(forLanguage:))
            return numbers.reduce(0) { total, number in
                let group = scopeGroups[number]
                guard let allowed else { return total + group.count }
                return total + (group.scopes.contains(where: allowed.contains) ? group.count : 0)
            }
        }

        /// The library titles (two words or more) whose words occur in a row in `words`, in library order.
        func titles(namedIn words: [String]) -> [String] {
            var found: [(title: String, order: Int)] = []
            for length in titleWordCounts where length <= words.count {
                for start in 0...(words.count - length) {
                    let key = " " + words[start..<start + length].joined(separator: " ") + " "
                    for entry in titlesByWords[key] ?? [] where !found.contains(where: { $0.title == entry.title }) {
                        found.append(entry)
                    }
                }
            }
            return found.sorted { $0.order < $1.order }.map(\.title)
        }
    }
}
