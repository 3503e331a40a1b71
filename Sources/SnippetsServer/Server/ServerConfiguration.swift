import Foundation
import SnippetsCore
import SnippetsModelClient

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file's size and modification time, to notice edits cheaply.
public struct FileStamp: Hashable, Sendable {
    public var size: Int
    public var modified: Date

    public init(size: Int, modified: Date) {
        self.size = size
        self.modified = modified
    }
}

/// How the server reaches the world: where the library is by default, how it is loaded and watched, where logs go.
/// Tests replace the closures with in-memory ones.
public struct ServerConfiguration: Sendable {
    /// Library layers used when the `libraries` setting is absent (from `--library`, `SNIPPETS_LIBRARY`, XDG).
    public var defaultLibraryLayers: [LibraryLayer]
    /// Loads the library of these layers (files or directories, in precedence order) plus the
    /// `.vscode/*.code-snippets` files of the workspace roots, unannotated (see `annotateLibrary`). Called off the
    /// request loop.
    public var loadLibrary: @Sendable (_ layers: [LibraryLayer], _ workspaceRoots: [String]) -> SnippetLibrary
    /// Loads, from these layers, only the files a document of `language` may need
    /// (`LibraryLoader.load(layers:workspaceRoots:language:)`), for completion before the first load is in service;
    /// nil: completion waits for the first load. Called off the request loop.
    public var loadLanguageFiles: (@Sendable (_ layers: [LibraryLayer], _ language: String) -> SnippetLibrary)? = nil
    /// What is learned from a loaded library as a whole (layer revisions, conflicts between definitions) without
    /// changing its snippets: `LayerLoading.annotating` for the real disk. The first load goes into service before
    /// this runs, so completion does not wait for it. Called off the request loop.
    public var annotateLibrary: @Sendable (SnippetLibrary) -> SnippetLibrary = { $0 }
    /// Which rule chose `defaultLibraryLayers` (for messages and `doctor`).
    public var defaultLibrarySource: LibraryPaths.Source = .flags
    /// Stamps of every file under these paths, for the periodic check when the client cannot watch files.
    /// Nil disables the periodic check.
    public var libraryStamps: (@Sendable ([String]) -> [String: FileStamp])?
    /// How often the periodic check runs.
    public var pollInterval: Duration
    /// Where the trigger characters of a load are kept for the next start of a client that cannot register
    /// completion later (see `TriggerCharacterMemory`); nil keeps none, and `initialize` then waits for the load.
    public var triggerCharacterMemory: TriggerCharacterMemory? = nil
    /// The walk behind `libraryStamps`, when that is a `DiskStamps.WalkKeeping` (`serve`): its folders are kept with
    /// a trigger-character list, so that a later start checks them and the files instead of walking the library.
    public var libraryWalk: DiskStamps.WalkKeeping? = nil
    /// How long a request that reads the library (and `initialize`, for clients that cannot register completion
    /// later) waits for the first load before answering "still loading".
    public var firstLoadWait: Duration = .seconds(2)
    /// When `initialize` was answered without the first load, how long that load waits for the first opened
    /// document's language files to be read before it starts (`LibraryService.scheduleReload(firstLanguageWithin:)`).
    public var firstLanguageGrace: Duration = .milliseconds(100)
    /// Writes one log line to stderr (never stdout).
    public var logError: @Sendable (String) -> Void
    /// The clock for date and time variables.
    public var now: @Sendable () -> Date
    /// The process environment.
    public var environment: [String: String]
    /// Meaning search: the encoder built into the binary, embedding each snapshot in the background; nil when no
    /// encoder file was found (then `meaningOffReason` says why, and ask matches words only).
    public var meaning: MeaningService? = nil
    /// Why meaning search is off, and how to turn it on.
    public var meaningOffReason: String? = nil
    /// The model from the command line (`serve --model-url`), used until the `model` setting says otherwise.
    public var defaultModel: ModelConfiguration? = nil
    /// `serve --model-role`, used until the `model` setting says otherwise.
    public var defaultModelRole: ModelRoleSetting = .auto
    /// Whether a configured model is measured on the library in the background (`serve` does; in-process tests
    /// that script a model's every reply opt in).
    public var measuresModels = false
    /// How measurement probes are spaced (`ModelQualifier`): a person's pace; tests that script a model shorten it.
    public var probePacing = ProbePacing.standard
    /// `serve --no-learning`: learning stays off whatever the `learning` setting says.
    public var learningDisabled = false
    /// Loads the learned words of a loaded library from the learned-words files of its paths. Called off the
    /// request loop, after `loadLibrary`.
    public var loadLearnedWords: @Sendable (_ paths: [String], _ library: SnippetLibrary) -> LearnedWords = { paths, library in
        LearnedWordsStore.load(paths: paths, library: library)
    }
    /// May this learned-words file (links resolved) be written? Asked besides the layers' own check; every file may
    /// by default.
    public var mayWriteLearnedWords: LearnedWordsStore.WriteCheck = LearnedWordsStore.everyFolderWritable

    public init(
        defaultLibraryLayers: [LibraryLayer],
        loadLibrary: @escaping @Sendable (_ layers: [LibraryLayer], _ workspaceRoots: [String]) -> SnippetLibrary,
        libraryStamps: (@Sendable ([String]) -> [String: FileStamp])? = DiskStamps.WalkKeeping().stamps(under:),
        pollInterval: Duration = .seconds(2),
        logError: @escaping @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) },
        now: @escaping @Sendable () -> Date = { Date() },
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.defaultLibraryLayers = defaultLibraryLayers
        self.loadLibrary = loadLibrary
        self.libraryStamps = libraryStamps
        self.pollInterval = pollInterval
        self.logError = logError
        self.now = now
        self.environment = environment
    }
}

/// Reads file stamps from the disk, for the periodic library check.
public enum DiskStamps {
    /// Size and modification time of every file a load of `paths` reads (see `stamps(under:fileSystem:)`).
    @Sendable public static func stamps(under paths: [String]) -> [String: FileStamp] {
        stamps(under: paths, fileSystem: DiskFileSystem())
    }

    /// Size and modification time of every file a load reads under `paths`, found through `fileSystem`. A library
    /// folder is walked by the loader's own walk (`LibraryLoader.walkedFiles(under:)`: hidden folders such as
    /// `.git` or `.venv` and folders a format skips are never entered), plus its learned-words file; a root inside
    /// a hidden folder (the git state a layer's revision is read from: `HEAD`, `refs`, …) is stamped whole. A file
    /// reached through a symbolic link is stamped by its target, so an edit to the target counts. One `stat` per
    /// file: this runs every `pollInterval` for clients that do not watch files, so its cost follows the library's
    /// own files.
    public static func stamps(under paths: [String], fileSystem: any LibraryFileSystem) -> [String: FileStamp] {
        let walker = LibraryLoader(fileSystem: fileSystem, checkBody: nil)
        var result: [String: FileStamp] = [:]
        func record(_ path: String) {
            guard let status = DiskStamps.status(of: path), !status.isDirectory else { return }
            result[path] = status.stamp
        }
        /// Every file under `path`, for the git state, which the loader's walk would not enter.
        func recordTree(_ path: String) {
            guard let names = try? fileSystem.contentsOfDirectory(at: path) else { return record(path) }
            for name in names {
                let child = LibraryPath.join(path, name)
                if case .directory = fileSystem.item(at: child) { recordTree(child) } else { record(child) }
            }
        }
        for path in paths {
            switch fileSystem.item(at: path) {
            case .directory where isGitRefs(path, fileSystem: fileSystem):
                recordTree(path)
            case .directory:
                walker.walkedFiles(under: path).forEach(record)
                record(LearnedWords.filePath(inFolder: LearnedWords.folder(forLibraryPath: path, isDirectory: true)))
            case .file:
                record(path)
                record(LearnedWords.filePath(inFolder: LearnedWords.folder(forLibraryPath: path, isDirectory: false)))
            case .missing, .unusable:
                continue
            }
        }
        return result
    }

    /// `stamps(under:)` for the periodic check, keeping the walk between checks: a walk decides each file's format
    /// by its path (most of a check's cost at 59,000 snippets), and which files it finds changes only when a
    /// folder it listed gains, loses or renames an entry, or a file it stamped changes (a `package.json` says
    /// which files count). So a check stats the listed folders; when none changed it stats the kept files, and walks
    /// again only when a folder or a file stamp changed (or the roots did). The stamps are always those a walk of
    /// the moment would give for files whose folders are unchanged. Each check costs about what a `find` of the
    /// library's own files does.
    public final class WalkKeeping: @unchecked Sendable {
        // `@unchecked`: every member is touched only under `lock`.
        private let lock = NSLock()
        private let fileSystem: any LibraryFileSystem
        private var roots: [String]?
        /// Every folder the last walk listed, and every root (nil where nothing was there), with its stamp then.
        private var watched: [String: FileStamp?] = [:]
        /// The files the last walk stamped, and the learned-words files it looked for.
        private var files: [String] = []
        /// The stamps the last check gave.
        private var last: [String: FileStamp] = [:]
        private var walkCount = 0

        public init(fileSystem: any LibraryFileSystem = DiskFileSystem()) { self.fileSystem = fileSystem }

        /// Walks made so far (a check that found nothing changed walks nothing).
        public var walks: Int { lock.withLock { walkCount } }

        @Sendable public func stamps(under paths: [String]) -> [String: FileStamp] {
            lock.withLock { stampsKeepingWalk(under: paths) }
        }

        /// What a walk saw: its roots, every folder it listed and every root with its stamp (nil where nothing was
        /// there), and the stamps it gave. Kept across starts with a trigger-character list (`TriggerCharacterMemory`),
        /// so that a later start checks these folders and files instead of walking (`adopt(_:)`).
        public struct Walk: Sendable, Equatable {
            public var roots: [String]
            public var folders: [String: FileStamp?]
            public var stamps: [String: FileStamp]
        }

        /// `stamps(under:)`, with the walk they come from.
        public func walk(under paths: [String]) -> Walk {
            lock.withLock {
                let stamps = stampsKeepingWalk(under: paths)
                return Walk(roots: paths, folders: watched, stamps: stamps)
            }
        }

        /// Takes `walk` (kept by an earlier process) as its last walk, when it has walked nothing yet: the next
        /// `stamps(under:)` of the same roots stats its folders and files, and walks only if one of them changed.
        public func adopt(_ walk: Walk) {
            lock.withLock {
                guard roots == nil else { return }
                roots = walk.roots
                watched = walk.folders
                last = walk.stamps
                files = Array(Set(last.keys).union(Self.learnedWordsFiles(under: walk.roots)))
            }
        }

        /// `stamps(under:)` under `lock`.
        private func stampsKeepingWalk(under paths: [String]) -> [String: FileStamp] {
            if roots == paths, watched.allSatisfy({ DiskStamps.status(of: $0.key)?.stamp == $0.value }) {
                var current: [String: FileStamp] = [:]
                for path in files {
                    if let status = DiskStamps.status(of: path), !status.isDirectory { current[path] = status.stamp }
                }
                if current == last { return current }
            }
            let listing = ListingFileSystem(fileSystem)
            last = DiskStamps.stamps(under: paths, fileSystem: listing)
            walkCount += 1
            roots = paths
            files = Array(Set(last.keys).union(Self.learnedWordsFiles(under: paths)))
            watched = [:]
            for path in listing.listed.union(paths) { watched.updateValue(DiskStamps.status(of: path)?.stamp, forKey: path) }
            return last
        }

        /// The learned-words files a walk of `paths` looks for, whether or not they exist.
        private static func learnedWordsFiles(under paths: [String]) -> [String] {
            paths.flatMap { path in
                [true, false].map { LearnedWords.filePath(inFolder: LearnedWords.folder(forLibraryPath: path, isDirectory: $0)) }
            }
        }
    }

    /// A file system that records every folder listed through it.
    private final class ListingFileSystem: LibraryFileSystem, @unchecked Sendable {
        // `@unchecked`: `listed` is touched only under `lock`; a walk lists from one thread.
        private let base: any LibraryFileSystem
        private let lock = NSLock()
        private var folders: Set<String> = []
        init(_ base: any LibraryFileSystem) { self.base = base }
        var listed: Set<String> { lock.withLock { folders } }
        func item(at path: String) -> FileSystemItem { base.item(at: path) }
        func contentsOfDirectory(at path: String) throws -> [String] {
            lock.withLock { _ = folders.insert(path) }
            return try base.contentsOfDirectory(at: path)
        }
        func contents(of path: String) throws -> [UInt8] { try base.contents(of: path) }
        func contents(of path: String, maximumSize: Int) throws -> [UInt8] { try base.contents(of: path, maximumSize: maximumSize) }
        func canonicalPath(of path: String) -> String? { base.canonicalPath(of: path) }
        func identity(of path: String) -> String? { base.identity(of: path) }
    }

    /// The size and modification time of what `path` names (links followed), and whether it is a folder; nil when
    /// nothing is there. One `stat`.
    static func status(of path: String) -> (stamp: FileStamp, isDirectory: Bool)? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        #if canImport(Darwin)
            let time = status.st_mtimespec
        #else
            let time = status.st_mtim
        #endif
        let modified = Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000)
        return (FileStamp(size: Int(status.st_size), modified: modified), status.st_mode & S_IFMT == S_IFDIR)
    }

    /// Whether `path` is a repository's `refs` folder (`GitRevision.watchedPaths(of:)`): a folder named `refs` beside
    /// a `HEAD` file.
    private static func isGitRefs(_ path: String, fileSystem: any LibraryFileSystem) -> Bool {
        guard LibraryPath.name(path) == "refs", case .file = fileSystem.item(at: LibraryPath.join(LibraryPath.parent(path), "HEAD")) else {
            return false
        }
        return true
    }
}
