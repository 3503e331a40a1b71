import Foundation
import SnippetsCore

/// Why learning (or forgetting) was refused, in words for the user.
public enum LearnError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No snippet has this identifier, title or trigger.
    case unknownSnippet(String)
    /// Several snippets have this title.
    case ambiguousTitle(String, locations: [String])
    /// No snippet has this title, and several have it as their trigger.
    case ambiguousTrigger(String, locations: [String])
    /// The snippet's file is in no library folder (a project snippet), so there is no learned-words file for it.
    case outsideLibrary(title: String)
    /// The library folder may not be written (a read-only layer).
    case readOnly(folder: String)
    /// The learned-words file is a link to a file that may not be written (outside the library, in a read-only
    /// layer, not a learned-words file).
    case linkedAway(path: String, target: String)
    /// Learning is switched off (`learning: false`, `--no-learning`).
    case disabled
    /// The learned-words file could not be edited or written.
    case notWritten(path: String, reason: String)

    public var description: String {
        switch self {
        case .unknownSnippet(let name): "no snippet has the identifier, title or trigger \"\(name)\""
        case .ambiguousTitle(let title, let locations):
            "several snippets are titled \"\(title)\" (\(locations.joined(separator: ", "))); give its identifier instead"
        case .ambiguousTrigger(let trigger, let locations):
            "several snippets have the trigger \"\(trigger)\" (\(locations.joined(separator: ", "))); give its title or identifier instead"
        case .outsideLibrary(let title): "\"\(title)\" is not in a library folder, so there is nowhere to keep what it learned"
        case .readOnly(let folder): "the library folder \(folder) is read-only; nothing was learned"
        case .linkedAway(let path, let target):
            "\(path) is a link to \(target), which is not the learned-words file of a writable library folder; nothing was written"
        case .disabled: "learning is switched off (setting `learning: false` or `--no-learning`)"
        case .notWritten(let path, let reason): "\(path): \(reason)"
        }
    }
}

/// What one `learn --forget` (or `snippets.forget`) did.
public struct ForgetOutcome: Hashable, Sendable {
    /// How many words were removed, from the files that may be written.
    public var removed: Int
    /// How many taught questions were removed, from the files that may be written.
    public var removedQuestions = 0
    /// The learned-words files that hold words to forget but may not be written (a read-only layer's), with how
    /// many words each keeps.
    public var leftReadOnly: [ReadOnlyFile]

    public struct ReadOnlyFile: Hashable, Sendable {
        public var path: String
        public var words: Int
    }
}

/// What one `learn` did.
public struct LearnOutcome: Hashable, Sendable {
    /// The words newly recorded (empty: the snippet already had every content word of the question).
    public var words: [String]
    /// The learned-words file written (nil when nothing needed writing).
    public var path: String?
}

/// Reads and writes the learned-words files (`LearnedWords.fileName`) of the library folders.
///
/// **Invariant:** every write of a learned-words file goes through `write(folder:mayWrite:edit:)`: it resolves the
/// file's links first, asks the caller's `mayWrite` check of the file a write would change (a link out of the
/// library, or into a read-only layer, is refused), edits it textually (`LearnedWordsFileEdit`) and writes it
/// atomically through `SnippetFileWriter`. Snippet files are never touched.
public enum LearnedWordsStore {
    /// "May this learned-words file be written?", asked of the file a write would change: links resolved.
    public typealias WriteCheck = @Sendable (_ target: String) -> Bool
    /// The check that lets every folder be written.
    public static let everyFolderWritable: WriteCheck = { _ in true }

    /// The folders whose learned-words files cover `paths`: each directory, and the directory of each file.
    public static func folders(for paths: [String]) -> [String] {
        var result: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            let folder = LearnedWords.folder(forLibraryPath: path, isDirectory: isDirectory.boolValue)
            if !result.contains(folder) { result.append(folder) }
        }
        return result
    }

    /// The learned words of `library`, loaded from `paths`' learned-words files.
    public static func load(paths: [String], library: SnippetLibrary, fileSystem: any LibraryFileSystem = DiskFileSystem()) -> LearnedWords {
        LearnedWords.load(folders: folders(for: paths), fileSystem: fileSystem, library: library)
    }

    /// The snippet named `name`: an identifier, else an exact title (then case-insensitively), else a trigger; the
    /// title or trigger must be unique.
    public static func snippet(named name: String, in library: SnippetLibrary) throws(LearnError) -> Snippet {
        if let snippet = library.snippet(withID: SnippetID(rawValue: name)) { return snippet }
        var matching = library.snippets.filter { $0.title == name }
        if matching.isEmpty { matching = library.snippets.filter { $0.title.lowercased() == name.lowercased() } }
        if let first = matching.first {
            guard matching.count == 1 else { throw .ambiguousTitle(name, locations: matching.map(\.location.pathAndLine)) }
            return first
        }
        // The trigger is what a user knows a snippet by when typing it.
        let triggered = library.snippets.filter { $0.triggers.contains(name) }
        guard let first = triggered.first else { throw .unknownSnippet(name) }
        guard triggered.count == 1 else { throw .ambiguousTrigger(name, locations: triggered.map(\.location.pathAndLine)) }
        return first
    }

    /// Records `question`'s content words that `snippet` does not contain as its learned words, and the question
    /// itself as taught (`LearnedWords.questionMark`), so asking it again names the snippet whatever words it taught.
    public static func learn(
        question: String, snippet: Snippet, library: SnippetLibrary, learned: LearnedWords, paths: [String],
        mayWrite: WriteCheck = everyFolderWritable
    ) throws(LearnError) -> LearnOutcome {
        guard let place = LearnedWords.place(of: snippet, in: library, folders: folders(for: paths)) else {
            throw .outsideLibrary(title: snippet.title)
        }
        let words = LearnedWords.wordsToLearn(from: question, for: snippet, alreadyLearned: learned.words(for: snippet.id))
        let isNewQuestion = !learned.snippets(taughtQuestion: question).contains(snippet.id)
            && !LearnedWords.questionKey(question).isEmpty
        guard !words.isEmpty || isNewQuestion else { return LearnOutcome(words: [], path: nil) }
        let path = try write(folder: place.folder, mayWrite: mayWrite) { original throws(LearnedWordsEditError) in
            try LearnedWordsFileEdit.adding(words, question: question, file: place.file, title: snippet.title, to: original)
        }
        return LearnOutcome(words: words, path: path)
    }

    /// Forgets learned words: of `snippet` (nil: every snippet), those of `question`'s content words and the
    /// question itself as taught (nil: every word and question), in every learned-words file that may be written.
    /// A file that may not be (a read-only layer's) is left as it is and named in the outcome when it holds words to
    /// forget.
    public static func forget(
        question: String?, snippet: Snippet?, library: SnippetLibrary, paths: [String],
        mayWrite: WriteCheck = everyFolderWritable
    ) throws(LearnError) -> ForgetOutcome {
        let words = question.map { QuestionWord.words(in: $0).filter { !$0.isCompound }.map { $0.forms[0] } }
        return try forget(words: words, questions: question.map { [$0] } ?? [], snippet: snippet, library: library, paths: paths, mayWrite: mayWrite)
    }

    /// Forgets `words` (by stem) and the taught `questions` of `snippet` (nil: every snippet); nil `words`: every
    /// word and question. See `forget(question:snippet:library:paths:mayWrite:)`.
    public static func forget(
        words: [String]?, questions: [String], snippet: Snippet?, library: SnippetLibrary, paths: [String],
        mayWrite: WriteCheck = everyFolderWritable
    ) throws(LearnError) -> ForgetOutcome {
        var targets: [(folder: String, file: String?, title: String?)] = []
        if let snippet {
            guard let place = LearnedWords.place(of: snippet, in: library, folders: folders(for: paths)) else {
                throw .outsideLibrary(title: snippet.title)
            }
            targets.append((place.folder, place.file, snippet.title))
        } else {
            targets = folders(for: paths).map { ($0, nil, nil) }
        }
        var outcome = ForgetOutcome(removed: 0, leftReadOnly: [])
        for target in targets {
            let path = LearnedWords.filePath(inFolder: target.folder)
            guard FileManager.default.fileExists(atPath: path) else { continue }
            func forgetting(_ original: [UInt8]?) throws(LearnedWordsEditError) -> (bytes: [UInt8], removedWords: Int, removedQuestions: Int) {
                try LearnedWordsFileEdit.forgetting(
                    words: words, questions: questions, file: target.file, title: target.title, in: original ?? [])
            }
            guard mayWrite(LayerLoading.resolvingLinks(path)) else {
                // Counted, not written: what the user would still find there.
                let bytes = try? BoundedFileRead.contents(of: path, maximumSize: LearnedWords.maximumFileSize)
                if let bytes, let kept = try? forgetting(bytes).removedWords, kept > 0 {
                    outcome.leftReadOnly.append(.init(path: path, words: kept))
                }
                continue
            }
            var count = 0
            var questionCount = 0
            try write(folder: target.folder, mayWrite: mayWrite) { original throws(LearnedWordsEditError) in
                let result = try forgetting(original)
                count = result.removedWords
                questionCount = result.removedQuestions
                return result.bytes
            }
            outcome.removed += count
            outcome.removedQuestions += questionCount
        }
        return outcome
    }

    /// The one function that writes a learned-words file: the one in `folder`, its links resolved, when `mayWrite`
    /// allows the file they lead to, with `edit` applied to its current bytes (nil when missing), atomically.
    /// Returns the path of the file written.
    @discardableResult
    public static func write(
        folder: String, mayWrite: WriteCheck, edit: ([UInt8]?) throws(LearnedWordsEditError) -> [UInt8]
    ) throws(LearnError) -> String {
        let path = LearnedWords.filePath(inFolder: folder)
        let target = LayerLoading.resolvingLinks(path)
        guard mayWrite(target) else {
            throw LibraryPath.normalize(target) == LibraryPath.normalize(path) ? .readOnly(folder: folder) : .linkedAway(path: path, target: target)
        }
        var editError: LearnedWordsEditError?
        do {
            try SnippetFileWriter().update(target) { original throws(SnippetFileEditError) in
                do throws(LearnedWordsEditError) {
                    return try edit(original)
                } catch {
                    editError = error
                    throw .notAnObject  // stands for `editError`, reported below
                }
            }
        } catch {
            if let editError { throw .notWritten(path: path, reason: editError.description) }
            throw .notWritten(path: path, reason: error.description)
        }
        return path
    }
}
