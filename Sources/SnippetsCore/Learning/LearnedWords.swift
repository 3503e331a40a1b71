/// One entry of a learned-words file: the words a person used when they chose a snippet, in a question whose own
/// words the snippet did not contain.
public struct LearnedEntry: Hashable, Sendable {
    /// The snippet file, relative to the library folder holding the learned-words file (`/`-separated).
    public var file: String
    /// The snippet's title in that file (the VS Code entry key, the SnipMate description or trigger).
    public var title: String
    public var words: [String]

    public init(file: String, title: String, words: [String]) {
        self.file = file
        self.title = title
        self.words = words
    }
}

/// The words the user taught ask: for each snippet, the question words it did not contain when the user chose it.
/// A separate input to retrieval and the picker, counted like a snippet's description, never by completion.
///
/// Kept in the library, one file per library folder (`LearnedWords.fileName`), a JSON object mapping each snippet
/// file (relative to that folder) to an object mapping snippet titles to arrays of words:
///
///     {
///       "billing.code-snippets": {
///         "Unpaid account chase": ["café", "owes", "money"]
///       }
///     }
public struct LearnedWords: Sendable {
    /// The file name: hidden, so the library loader (which skips hidden entries) never reads it as a `<language>.json`
    /// snippet file, and beside the snippets, so it is shared and reviewed with them.
    public static let fileName = ".snippets-learned.json"
    /// The most words one snippet keeps; older words are kept, newer ones beyond this are dropped.
    public static let maximumWordsPerSnippet = 64
    /// Longer words (a pasted paragraph) are not used.
    public static let maximumWordLength = 64
    /// A larger learned-words file is not read (it is an error): it cannot be a person's learned words.
    public static let maximumFileSize = 1024 * 1024
    /// A taught question is kept in its snippet's array as the question after this mark
    /// (`"? someone asked if the bread has nuts in it"`): asked again, it names that snippet whatever words it
    /// taught (see `snippets(taughtQuestion:)`). Its words count only as the array's other entries.
    public static let questionMark = "? "
    /// The most taught questions one snippet keeps; older ones are kept, newer ones beyond this are dropped.
    public static let maximumQuestionsPerSnippet = 32

    /// Learned words by snippet, each list as the file(s) have it (duplicates by stem removed).
    public private(set) var wordsBySnippet: [SnippetID: [String]]
    /// Taught questions by snippet, as written after `questionMark`.
    public private(set) var questionsBySnippet: [SnippetID: [String]]
    /// Problems found in the learned-words files (syntax errors, entries whose snippet is gone).
    public private(set) var diagnostics: [LibraryDiagnostic]
    /// Stem → the snippets that learned a word of that stem.
    private var snippetsByStem: [String: Set<SnippetID>]
    /// `questionKey` of a taught question → the snippets taught it.
    private var snippetsByQuestion: [String: Set<SnippetID>]

    /// Nothing learned.
    public static let none = LearnedWords(wordsBySnippet: [:])

    /// Learned words for snippets by identifier (for tests and for values built by hand): the entries of their
    /// arrays, words and taught questions (`questionMark`) alike.
    public init(wordsBySnippet: [SnippetID: [String]], diagnostics: [LibraryDiagnostic] = []) {
        var cleaned: [SnippetID: [String]] = [:]
        var questions: [SnippetID: [String]] = [:]
        var byStem: [String: Set<SnippetID>] = [:]
        var byQuestion: [String: Set<SnippetID>] = [:]
        for (id, words) in wordsBySnippet {
            var seen: Set<String> = []
            var kept: [String] = []
            var asked: [String] = []
            for entry in words {
                if let question = Self.taughtQuestion(in: entry) {
                    let key = Self.questionKey(question)
                    guard !key.isEmpty, asked.count < Self.maximumQuestionsPerSnippet, seen.insert("?" + key).inserted else { continue }
                    asked.append(question)
                    byQuestion[key, default: []].insert(id)
                    continue
                }
                guard entry.count <= Self.maximumWordLength, kept.count < Self.maximumWordsPerSnippet else { continue }
                let stems = Self.stems(of: entry)
                guard !stems.isEmpty, seen.insert(stems.joined(separator: " ")).inserted else { continue }
                kept.append(entry)
                for stem in stems { byStem[stem, default: []].insert(id) }
            }
            if !kept.isEmpty { cleaned[id] = kept }
            if !asked.isEmpty { questions[id] = asked }
        }
        self.wordsBySnippet = cleaned
        self.questionsBySnippet = questions
        self.diagnostics = diagnostics
        self.snippetsByStem = byStem
        self.snippetsByQuestion = byQuestion
    }

    /// Whether nothing was learned.
    public var isEmpty: Bool { wordsBySnippet.isEmpty && questionsBySnippet.isEmpty }

    /// The question an array entry keeps after `questionMark`, nil for a word.
    public static func taughtQuestion(in entry: String) -> String? {
        guard entry.hasPrefix("?") else { return nil }
        return String(entry.dropFirst()).trimmingWhitespace()
    }

    /// How a taught question is compared with one asked: its letters and digits lowercased, each run of anything
    /// else one space ("Does the bread have nuts?" and "does the bread have nuts" are the same question).
    public static func questionKey(_ question: String) -> String {
        question.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).joined(separator: " ")
    }

    /// The snippets taught `question` itself (compared by `questionKey`).
    public func snippets(taughtQuestion question: String) -> Set<SnippetID> {
        snippetsByQuestion[Self.questionKey(question)] ?? []
    }

    /// The words learned for `id`.
    public func words(for id: SnippetID) -> [String] { wordsBySnippet[id] ?? [] }

    /// The stems learned for `id` (a word of several tokens gives several).
    func stems(for id: SnippetID) -> Set<String> {
        Set(words(for: id).flatMap(Self.stems(of:)))
    }

    /// The snippets that learned a word of stem `stem`.
    func snippets(learningStem stem: String) -> Set<SnippetID> { snippetsByStem[stem] ?? [] }

    /// The stems of a learned word, as the index matches words.
    static func stems(of word: String) -> [String] {
        AskWords.tokens(in: word).filter { !QuestionWord.isIgnorable($0) }.map(AskWords.stem)
    }
}

// MARK: - Which words are learned

extension LearnedWords {
    /// The words of `question` to learn for `snippet`: its content words (negated ones in their negated form,
    /// "hasn't paid" → `unpaid`) that the snippet's own text and the words it already learned do not contain.
    /// Fillers ("still", "yet") and bare numbers are never learned: they say nothing about one snippet.
    public static func wordsToLearn(from question: String, for snippet: Snippet, alreadyLearned: [String] = []) -> [String] {
        let own = SnippetEvidence(snippet).stems.union(alreadyLearned.flatMap(stems(of:)))
        var result: [String] = []
        for word in QuestionWord.words(in: question) where !word.isCompound {
            guard !own.contains(word.stem), !Lexicon.negationFillers.contains(word.word),
                !word.word.allSatisfy(\.isNumber), !commonStems.contains(word.stem)
            else { continue }
            let negated = word.forms.first.map { $0.hasPrefix("un") && AskWords.stem($0) == word.stem } ?? false
            result.append(negated ? word.forms[0] : word.word)
        }
        return result
    }
}

extension LearnedWords {
    /// The stems of `Lexicon.commonWords`: everyday words that say when, how much or how things went rather than what
    /// a question is about ("next year", "a quick question"), never learned, so a later question sharing only them is
    /// not taken for the learned one.
    static let commonStems: Set<String> = Set(Lexicon.commonWords.texts.map(AskWords.stem))
}

// MARK: - The file

extension LearnedWords {
    /// The folder whose learned-words file covers library path `path`: the path itself for a directory, its parent
    /// for a single snippet file.
    public static func folder(forLibraryPath path: String, isDirectory: Bool) -> String {
        isDirectory ? LibraryPath.normalize(path) : LibraryPath.parent(LibraryPath.normalize(path))
    }

    /// The learned-words file's path in `folder`.
    public static func filePath(inFolder folder: String) -> String {
        LibraryPath.join(folder, fileName)
    }

    /// Where a snippet's entry goes: the learned-words folder of the snippet's own layer (of `folders`) and the
    /// file's path relative to it. Nil for a snippet outside every folder (a project snippet).
    public static func place(of snippet: Snippet, in library: SnippetLibrary, folders: [String]) -> (folder: String, file: String)? {
        guard let file = library.files.first(where: { $0.uri == snippet.location.uri }),
            let layer = library.layers.first(where: { $0.name == file.layer })
        else { return nil }
        let path = LibraryPath.normalize(file.path)
        let folder = self.folder(of: layer, in: library)
        guard folders.map(LibraryPath.normalize).contains(folder), path.hasPrefix(folder == "/" ? "/" : folder + "/") else { return nil }
        let relative = String(path.dropFirst(folder == "/" ? 1 : folder.count + 1))
        return (folder, relative)
    }

    /// The folder whose learned-words file speaks for `layer` (as `folder(forLibraryPath:isDirectory:)` finds it on
    /// the disk): its directory, or the directory of a layer that is one file (a snippet file, a `package.json`).
    static func folder(of layer: LibraryLayer, in library: SnippetLibrary) -> String {
        let path = LibraryPath.normalize(layer.path)
        var isDirectory = false
        for file in library.files where file.layer == layer.name {
            let filePath = LibraryPath.normalize(file.path)
            if filePath == path { return LibraryPath.parent(path) }
            if filePath.hasPrefix(path == "/" ? "/" : path + "/") { isDirectory = true }
        }
        return isDirectory || !LibraryPath.name(path).contains(".") ? path : LibraryPath.parent(path)
    }

    /// The entries of a learned-words file's bytes, and its problems (reported against `uri`).
    public static func parse(_ bytes: [UInt8], uri: String) -> (entries: [LearnedEntry], locations: [SourcePosition], diagnostics: [LibraryDiagnostic]) {
        let table = LineTable(String(decoding: bytes, as: UTF8.self))
        func problem(_ offset: Int, _ severity: LibraryDiagnostic.Severity, _ code: DiagnosticCode, _ message: String) -> LibraryDiagnostic {
            LibraryDiagnostic(uri: uri, position: table.position(ofUTF8Offset: offset), severity: severity, code: code, message: message)
        }
        let root: JSONCValue
        switch JSONC.parse(bytes) {
        case .success(let value): root = value
        case .failure(let error):
            return ([], [], [problem(error.offset, .error, .learnedSyntax, "the learned-words file is not valid JSON: \(error.message); nothing in it is used")])
        }
        guard let files = root.members else {
            return ([], [], [problem(root.range.lowerBound, .error, .learnedShape, "the learned-words file must be a JSON object mapping snippet files to objects; nothing in it is used")])
        }
        var entries: [LearnedEntry] = []
        var locations: [SourcePosition] = []
        var diagnostics: [LibraryDiagnostic] = []
        for file in files {
            guard let titles = file.value.members else {
                diagnostics.append(problem(file.value.range.lowerBound, .error, .learnedShape, "\"\(file.key)\" must map snippet titles to arrays of words; it is ignored"))
                continue
            }
            for title in titles {
                guard case .array(let values) = title.value.kind, values.allSatisfy({ $0.stringValue != nil }) else {
                    diagnostics.append(problem(title.value.range.lowerBound, .error, .learnedShape, "the learned words of \"\(title.key)\" must be an array of strings; they are ignored"))
                    continue
                }
                entries.append(LearnedEntry(file: file.key, title: title.key, words: values.compactMap(\.stringValue)))
                locations.append(table.position(ofUTF8Offset: title.keyRange.lowerBound))
            }
        }
        return (entries, locations, diagnostics)
    }

    /// The learned words of `library` from the learned-words files of `folders`, read through `fileSystem`. A file
    /// that is missing is no problem; an entry whose snippet is gone is a warning and is not used.
    ///
    /// A learned-words file speaks only for the snippets of its own folder and layer: a key must be a path inside
    /// the folder (no `..`, not absolute), and the snippet must be in the layer whose folder it is (a layer's
    /// directory, or the directory of a layer that is one file), so a team layer's file cannot teach the user's own
    /// snippets, nor a folder's file a layer nested in it. Anything else is a warning and is not used.
    public static func load(folders: [String], fileSystem: any LibraryFileSystem, library: SnippetLibrary) -> LearnedWords {
        var words: [SnippetID: [String]] = [:]
        var diagnostics: [LibraryDiagnostic] = []
        var seenFolders: Set<String> = []
        // Snippets by file path and title, built once (a library may have thousands of files), and only when a
        // learned-words file has entries: most libraries have none, and this is on the way to the first answer.
        var byPathAndTitle: [String: [String: [(id: SnippetID, layer: String)]]]?
        func snippets(inFile path: String, titled title: String) -> [(id: SnippetID, layer: String)] {
            if byPathAndTitle == nil {
                var index: [String: [String: [(id: SnippetID, layer: String)]]] = [:]
                for file in library.files {
                    let path = LibraryPath.normalize(file.path)
                    for snippet in file.snippets { index[path, default: [:]][snippet.title, default: []].append((snippet.id, file.layer)) }
                }
                byPathAndTitle = index
            }
            return byPathAndTitle?[path]?[title] ?? []
        }
        // Each layer's learned-words folder, also found only when a file is read.
        var folderByLayer: [String: String]?
        func layers(speakingFrom folder: String) -> Set<String> {
            if folderByLayer == nil {
                folderByLayer = Dictionary(library.layers.map { ($0.name, self.folder(of: $0, in: library)) }, uniquingKeysWith: { first, _ in first })
            }
            return Set((folderByLayer ?? [:]).filter { $0.value == folder }.keys)
        }
        for folder in folders.map(LibraryPath.normalize) where seenFolders.insert(folder).inserted {
            let path = filePath(inFolder: folder)
            let uri = DocumentURI(filePath: path).stringValue
            guard case .file(let size) = fileSystem.item(at: path) else { continue }
            guard size <= maximumFileSize else {
                diagnostics.append(LibraryDiagnostic(
                    uri: uri, position: .init(line: 0, asciiColumn: 0), severity: .error, code: .learnedTooLarge,
                    message: "the learned-words file is \(size) bytes; the most read is \(maximumFileSize), so nothing in it is used"))
                continue
            }
            let bytes: [UInt8]
            do {
                bytes = try fileSystem.contents(of: path)
            } catch {
                diagnostics.append(LibraryDiagnostic(
                    uri: uri, position: .init(line: 0, asciiColumn: 0), severity: .error, code: .learnedUnreadable,
                    message: "the learned-words file could not be read: \(error)"))
                continue
            }
            // The layers this folder's file speaks for.
            let layers = layers(speakingFrom: folder)
            let parsed = parse(bytes, uri: uri)
            diagnostics += parsed.diagnostics
            for (entry, position) in zip(parsed.entries, parsed.locations) {
                guard isInsideFolder(entry.file) else {
                    diagnostics.append(LibraryDiagnostic(
                        uri: uri, position: position, severity: .warning, code: .learnedOutsideFolder,
                        message: "learned words for \"\(entry.title)\" in \(entry.file): a learned-words file speaks only for the snippet files of its own folder; they are not used"))
                    continue
                }
                let found = snippets(inFile: LibraryPath.join(folder, entry.file), titled: entry.title)
                let matching = found.filter { layers.contains($0.layer) }.map(\.id)
                guard !matching.isEmpty else {
                    if !found.isEmpty {
                        diagnostics.append(LibraryDiagnostic(
                            uri: uri, position: position, severity: .warning, code: .learnedOutsideFolder,
                            message: "learned words for \"\(entry.title)\" in \(entry.file): that snippet is in another library layer, and a learned-words file speaks only for its own; they are not used"))
                        continue
                    }
                    diagnostics.append(LibraryDiagnostic(
                        uri: uri, position: position, severity: .warning, code: .learnedSnippetGone,
                        message: "learned words for \"\(entry.title)\" in \(entry.file): no such snippet in the library any more; they are not used (`snippets-lsp learn --forget --snippet` or delete the entry)"))
                    continue
                }
                for id in matching {
                    words[id, default: []] += entry.words
                }
            }
        }
        return LearnedWords(wordsBySnippet: words, diagnostics: diagnostics)
    }

    /// Whether a learned-words key names a file inside its folder: relative, without `..`, not empty.
    static func isInsideFolder(_ key: String) -> Bool {
        let components = key.split(separator: "/", omittingEmptySubsequences: true)
        return !key.hasPrefix("/") && !components.isEmpty && !components.contains("..") && !key.contains("\0")
    }
}
