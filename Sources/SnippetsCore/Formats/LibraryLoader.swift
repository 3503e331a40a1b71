import Dispatch
/// Finds and reads snippet files under the library paths, through a `LibraryFileSystem`.
///
/// Which files are read (each library path may be a file or a directory):
/// - a directory holding a `package.json` with `contributes.snippets` is read through it: only the files it names,
///   with the languages it gives them; nothing else in that directory tree is read.
/// - otherwise directories are walked recursively (a directory's files in sorted order, then its subdirectories in
///   sorted order, as SnipMate reads `c.snippets` before `c/*.snippets`), skipping hidden entries (`.git`, …); a
///   file is read when a format of `FormatRegistry` recognises it by its name and place, with that format's reader.
///   Other files (README, LICENSE, …) and `package.json` files without snippets are skipped without a diagnostic: a
///   library directory is allowed to hold other things.
/// - a workspace root contributes its `.vscode/*.code-snippets` files (project snippets).
///
/// Every problem becomes a diagnostic and the rest of the library still loads: a missing or unusable path
/// (a symlink loop, a device) is a loader diagnostic; a file that is too large (`maximumFileSize`, checked from
/// its size before reading), unreadable, binary (a NUL byte) or not UTF-8 is an error on that file.
public struct LibraryLoader: Sendable {
    /// Where files are read from.
    public let fileSystem: any LibraryFileSystem
    /// Files larger than this are not read (8 MiB by default: far above any real snippet file).
    public var maximumFileSize: Int
    /// How bodies are checked; nil skips checking (benchmarks, or callers that check elsewhere).
    public var checkBody: SnippetBodyChecker?

    /// The default size limit, 8 MiB.
    public static let defaultMaximumFileSize = 8 * 1024 * 1024

    /// Checks a body with the snippet grammar (`SnippetBody.parse`).
    public static let grammarBodyChecker: SnippetBodyChecker = { SnippetBody.problems(in: $0) }

    /// A loader reading through `fileSystem`, refusing files over `maximumFileSize` bytes, checking bodies with
    /// `checkBody` (the snippet grammar by default).
    public init(
        fileSystem: any LibraryFileSystem,
        maximumFileSize: Int = LibraryLoader.defaultMaximumFileSize,
        checkBody: SnippetBodyChecker? = LibraryLoader.grammarBodyChecker
    ) {
        self.fileSystem = fileSystem
        self.maximumFileSize = maximumFileSize
        self.checkBody = checkBody
    }

    /// Loads every snippet under `paths` (absolute files or directories; URIs are built from them). Never throws: every problem becomes a diagnostic,
    /// and a missing path is a loader diagnostic that names it.
    public func load(paths: [String]) -> SnippetLibrary {
        load(paths: paths, workspaceRoots: [])
    }

    /// Loads every snippet under `paths`, then the project snippets (`.vscode/*.code-snippets`) of each workspace
    /// root. A workspace root without `.vscode` is not a problem.
    public func load(paths: [String], workspaceRoots: [String]) -> SnippetLibrary {
        load(layers: paths.map { LibraryLayer(path: $0) }, workspaceRoots: workspaceRoots)
    }

    /// Loads every layer in order (each file and snippet records its layer's name), then the project snippets
    /// (`.vscode/*.code-snippets`) of each workspace root as the layer `project`. Layer names are made unique.
    ///
    /// With `language`, the walk is the same but only the files a document of that language may need are read:
    /// those whose context may apply to its scopes (`SnippetFileContext.mayApply(toScopes:)`), the scopes growing
    /// with the `extends` of the files read until none is added. The files keep the full load's order, so in that
    /// language the library ranks, overrides and names its winners as the full one does; its other files are
    /// not in it (the server's first completion, before the whole library is read).
    public func load(layers given: [LibraryLayer], workspaceRoots: [String] = [], language: String? = nil) -> SnippetLibrary {
        let (layers, renameNotes) = LibraryLayer.uniquelyNamed(given)
        var walk = Walk(loader: self)
        for layer in layers {
            walk.layer = layer.name
            walk.visitLibraryPath(LibraryPath.normalize(layer.path))
        }
        walk.layer = LibraryLayer.projectLayerName
        for root in workspaceRoots {
            walk.visitWorkspaceRoot(LibraryPath.normalize(root))
        }
        walk.readPendingFiles(forLanguage: language)
        walk.resolveOverrides()
        for note in renameNotes {
            walk.report(.warning, .layerName, note.message, path: note.path)
        }
        var library = SnippetLibrary(files: walk.files, loaderDiagnostics: walk.loaderDiagnostics, searchedPaths: layers.map(\.path))
        var allLayers = layers
        if walk.files.contains(where: { $0.layer == LibraryLayer.projectLayerName }) {
            allLayers.append(LibraryLayer(path: workspaceRoots.first ?? "/", name: LibraryLayer.projectLayerName))
        }
        library.layers = allLayers
        return library
    }

    /// Every file a load of the library path `path` looks at, found by the load's own walk (hidden entries and
    /// folders a format's `DirectoryRule` skips left out, a `package.json`'s named files only) without reading a
    /// snippet file: what a check for changes needs to stamp, so its cost follows the library's own files and never
    /// a `.git` or `.venv` beside them.
    public func walkedFiles(under path: String) -> [String] {
        var walk = Walk(loader: self)
        walk.examined = []
        walk.visitLibraryPath(LibraryPath.normalize(path))
        var seen: Set<String> = []
        return ((walk.examined ?? []) + walk.pending.map(\.path)).filter { seen.insert($0).inserted }
    }

    /// Reads the one file at `path` as `context` says (how a full load read it: see `SnippetFile.context`), for
    /// reloading it after a change. `snippet!` overrides against other files are not re-applied.
    public func loadFile(at path: String, context: SnippetFileContext) -> SnippetFile {
        readFile(at: LibraryPath.normalize(path), context: context).file
    }

    /// Reads one file: size limit, bytes, text checks, then the format's reader.
    func readFile(at path: String, context: SnippetFileContext, knownSize: Int? = nil, related: RelatedFiles? = nil) -> (
        file: SnippetFile, overrides: [SnippetOverride]
    ) {
        let uri = DocumentURI(filePath: path).stringValue
        func failed(_ code: DiagnosticCode, _ message: String) -> (SnippetFile, [SnippetOverride]) {
            var file = SnippetFile(
                uri: uri, path: path, format: context.format,
                diagnostics: [
                    LibraryDiagnostic(uri: uri, position: SourcePosition(line: 0, asciiColumn: 0), severity: .error, code: code, message: message)
                ])
            file.context = context
            file.layer = context.layer
            return (file, [])
        }
        var size = knownSize
        if size == nil {
            switch fileSystem.item(at: path) {
            case .file(let fileSize): size = fileSize
            case .missing: return failed(.missingFile, "the file '\(path)' does not exist")
            case .directory: return failed(.unreadable, "'\(path)' is a directory, not a snippet file")
            case .unusable(let reason): return failed(.unreadable, "the file '\(path)' cannot be used: \(reason)")
            }
        }
        if let size, size > maximumFileSize {
            return failed(
                .fileTooLarge,
                "the file is \(size) bytes, over the \(maximumFileSize)-byte limit for snippet files, so it was not read")
        }
        let related = related ?? relatedFiles()
        let bytes: [UInt8]
        do {
            // A file other files may name is read once for the load, whether as itself or as one they name.
            bytes = FormatRegistry.format(context.format).isNamedByOtherFiles
                ? try related.ownBytes(path) { try fileSystem.contents(of: path, maximumSize: maximumFileSize) }
                : try fileSystem.contents(of: path, maximumSize: maximumFileSize)
        } catch let error as FileTooLarge {
            return failed(
                .fileTooLarge,
                "the file is \(error.size) bytes, over the \(maximumFileSize)-byte limit for snippet files, so it was not read")
        } catch {
            return failed(.unreadable, "the file could not be read: \(error)")
        }
        if let encoding = Self.utf16Encoding(of: bytes) {
            return failed(
                .utf16File,
                "the file is \(encoding) text, but snippet files must be UTF-8, so it was not read; convert it, e.g. "
                    + "`iconv -f \(encoding) -t UTF-8 '\(path)' > converted` and put the converted file in its place")
        }
        if bytes.contains(0) {
            return failed(.binaryFile, "the file holds NUL bytes: it looks binary, not like a snippet file, so it was not read")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return failed(.binaryFile, "the file is not valid UTF-8 text, so it was not read")
        }
        let context = FormatRegistry.context(context, claimedBy: text)
        let reading = FormatRegistry.format(context.format).read(
            SnippetFileSource(
                bytes: bytes, text: text, uri: uri, path: path, context: context, checkBody: checkBody,
                related: related, canonicalPath: { [fileSystem] in fileSystem.canonicalPath(of: $0) }))
        var file = reading.file
        file.diagnostics.sort { $0.position < $1.position }
        file.contentHash = FNV1a.hash(bytes)
        if !context.layer.isEmpty {
            file.layer = context.layer
            for index in file.snippets.indices { file.snippets[index].layer = context.layer }
        }
        return (file, reading.overrides)
    }

    /// The files snippet files name, for one load (or one file's reload): read through the loader's file system,
    /// keyed by their paths with links resolved.
    func relatedFiles() -> RelatedFiles {
        RelatedFiles(read: relatedFileReader, resolve: { [fileSystem] in fileSystem.canonicalPath(of: $0) ?? $0 })
    }

    /// Reads a file another names (espanso's `imports`) as snippet files are read: a regular file within the size
    /// limit, UTF-8 without NUL bytes.
    var relatedFileReader: @Sendable (String) -> RelatedFile {
        let fileSystem = fileSystem
        let limit = maximumFileSize
        return { path in
            guard case .file = fileSystem.item(at: path) else { return .unreadable("it is not a readable file") }
            guard let bytes = try? fileSystem.contents(of: path, maximumSize: limit) else {
                return .unreadable("it could not be read, or is over the \(limit)-byte limit")
            }
            guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else {
                return .unreadable("it is not UTF-8 text")
            }
            return .text(text, canonicalPath: fileSystem.canonicalPath(of: path) ?? path)
        }
    }

    /// "UTF-16" (with a byte-order mark), "UTF-16LE" or "UTF-16BE" (without one: every other byte of the start is
    /// NUL, as ASCII text in UTF-16 is) when `bytes` look like UTF-16 text; nil otherwise.
    static func utf16Encoding(of bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) { return "UTF-16" }
        let head = bytes.prefix(64)
        guard head.count >= 4, head.count % 2 == 0 else { return nil }
        let even = stride(from: 0, to: head.count, by: 2).map { head[$0] }
        let odd = stride(from: 1, to: head.count, by: 2).map { head[$0] }
        if odd.allSatisfy({ $0 == 0 }) && even.allSatisfy({ $0 != 0 }) { return "UTF-16LE" }
        if even.allSatisfy({ $0 == 0 }) && odd.allSatisfy({ $0 != 0 }) { return "UTF-16BE" }
        return nil
    }

    /// The state of one load: files read so far, loader diagnostics, directories seen.
    private struct Walk {
        let loader: LibraryLoader
        var files: [SnippetFile] = []
        var loaderDiagnostics: [LibraryDiagnostic] = []
        var overrides: [(fileIndex: Int, override: SnippetOverride)] = []
        /// The name of the layer being walked.
        var layer = ""
        /// Canonical paths of the files and directories read, so nothing is read twice.
        var seen: Set<String> = []
        /// The files snippet files name, shared by every file this load reads.
        let related: RelatedFiles
        /// Files found by the walk, in walk order, read afterwards (in parallel) by `readPendingFiles`.
        var pending: [(path: String, context: SnippetFileContext, size: Int?)] = []
        /// When not nil, every file the walk looks at (manifests and files of the folders it walks, snippet files or
        /// not), for `walkedFiles(under:)`.
        var examined: [String]?

        init(loader: LibraryLoader) {
            self.loader = loader
            self.related = loader.relatedFiles()
        }

        var fileSystem: any LibraryFileSystem { loader.fileSystem }

        mutating func report(_ severity: LibraryDiagnostic.Severity, _ code: DiagnosticCode, _ message: String, path: String) {
            loaderDiagnostics.append(
                LibraryDiagnostic(
                    uri: DocumentURI(filePath: path).stringValue, position: SourcePosition(line: 0, asciiColumn: 0), severity: severity,
                    code: code, message: message))
        }

        mutating func visitLibraryPath(_ path: String) {
            switch fileSystem.item(at: path) {
            case .missing:
                report(.error, .missingPath, "the library path '\(path)' does not exist", path: path)
            case .unusable(let reason):
                report(.error, .unusablePath, "the library path '\(path)' cannot be used: \(reason)", path: path)
            case .directory:
                visitDirectory(path, root: path)
            case .file(let size):
                if LibraryPath.name(path) == "package.json" {
                    if !visitManifest(at: path, size: size) {
                        report(.warning, .noSnippets, "'\(path)' has no 'contributes.snippets', so no snippets were read from it", path: path)
                    }
                } else if let context = FormatRegistry.context(forFileAt: path, root: LibraryPath.parent(path)) {
                    visitFile(path, context: context, size: size)
                } else {
                    report(
                        .error, .unknownFormat,
                        "'\(path)' is not a snippet file (expected \(FormatRegistry.expectedFileNames))", path: path)
                }
            }
        }

        mutating func visitWorkspaceRoot(_ root: String) {
            let directory = LibraryPath.join(root, ".vscode")
            guard case .directory = fileSystem.item(at: directory),
                let names = try? fileSystem.contentsOfDirectory(at: directory)
            else { return }
            for name in names.sorted() where name.hasSuffix(".code-snippets") && !name.hasPrefix(".") {
                let path = LibraryPath.join(directory, name)
                switch fileSystem.item(at: path) {
                case .file(let size):
                    visitFile(path, context: SnippetFileContext(format: .vscode, scopes: nil, isProjectFile: true), size: size)
                case .unusable(let reason):
                    report(.error, .unusablePath, "'\(path)' cannot be used: \(reason)", path: path)
                case .missing, .directory:
                    continue
                }
            }
        }

        mutating func visitFile(_ path: String, context: SnippetFileContext, size: Int?) {
            let canonical = fileSystem.identity(of: path) ?? path
            guard seen.insert(canonical).inserted else {
                report(.note, .alreadyLoaded, "'\(path)' was already read through another path, so it is not read twice", path: path)
                return
            }
            var context = context
            context.layer = layer
            pending.append((path, context, size))
        }

        /// Reads every file the walk found (with `language`, only those a document of it may need: see
        /// `load(layers:workspaceRoots:language:)`), several at a time (each file is read and parsed on its own, so
        /// only the order of the results matters), then keeps them in walk order: `snippet!` overrides depend on it.
        mutating func readPendingFiles(forLanguage language: String? = nil) {
            let reads = pending
            pending = []
            guard !reads.isEmpty else { return }
            let loader = loader
            let related = related
            let results = UnsafeMutableBufferPointer<(file: SnippetFile, overrides: [SnippetOverride])?>.allocate(capacity: reads.count)
            results.initialize(repeating: nil)
            defer {
                results.deinitialize()
                results.deallocate()
            }
            // Each iteration writes only its own slot.
            nonisolated(unsafe) let slots = results
            func read(_ numbers: [Int]) {
                DispatchQueue.concurrentPerform(iterations: numbers.count) { position in
                    let number = numbers[position]
                    let read = reads[number]
                    slots[number] = loader.readFile(at: read.path, context: read.context, knownSize: read.size, related: related)
                }
            }
            if let language {
                // Each round reads the files the scopes known so far reach; their `extends` may reach more.
                var extensions: [String: [String]] = [:]
                var unread = Array(reads.indices)
                while true {
                    let scopes = SnippetLibrary.scopes(forLanguage: language, extensions: extensions)
                    let wanted = unread.filter { reads[$0].context.mayApply(toScopes: scopes) }
                    if wanted.isEmpty { break }
                    read(wanted)
                    let taken = Set(wanted)
                    unread.removeAll { taken.contains($0) }
                    for number in wanted {
                        for (scope, parents) in slots[number]?.file.extensions ?? [:] {
                            extensions[scope, default: []].append(contentsOf: parents)
                        }
                    }
                }
            } else {
                read(Array(reads.indices))
            }
            for case let result? in results {
                for override in result.overrides { overrides.append((files.count, override)) }
                files.append(result.file)
            }
        }

        /// Reads the files a `package.json` names; false when it names none (an ordinary `package.json`).
        mutating func visitManifest(at path: String, size: Int) -> Bool {
            examined?.append(path)
            guard size <= loader.maximumFileSize, let bytes = try? fileSystem.contents(of: path, maximumSize: loader.maximumFileSize),
                let text = String(validating: bytes, as: UTF8.self)
            else { return false }
            var sink = DiagnosticSink(uri: DocumentURI(filePath: path).stringValue, table: LineTable(text))
            guard let manifest = PackageManifest.read(bytes: bytes, directory: LibraryPath.parent(path), sink: &sink) else {
                return false
            }
            loaderDiagnostics += sink.diagnostics
            for entry in manifest.entries {
                switch fileSystem.item(at: entry.path) {
                case .file(let size):
                    visitFile(entry.path, context: SnippetFileContext(format: .vscode, scopes: entry.languages), size: size)
                case .missing:
                    sink = DiagnosticSink(uri: sink.uri, table: sink.table)
                    sink.add(.error, .missingFile, "'contributes.snippets' names '\(entry.path)', which does not exist", at: entry.offset)
                    loaderDiagnostics += sink.diagnostics
                case .directory, .unusable:
                    sink = DiagnosticSink(uri: sink.uri, table: sink.table)
                    sink.add(.error, .unusablePath, "'contributes.snippets' names '\(entry.path)', which is not a readable file", at: entry.offset)
                    loaderDiagnostics += sink.diagnostics
                }
            }
            return true
        }

        /// The formats' changes to the contexts of files under the directories being walked (`DirectoryRule`).
        var contextChanges: [(format: SnippetFormat, change: @Sendable (SnippetFileContext) -> SnippetFileContext)] = []

        /// Identities of the directories being walked, from the root down: a loop is one seen again. Changed in
        /// place around each descent (not copied per level), so a deep tree costs depth, not depth², set entries.
        var ancestors: Set<String> = []

        mutating func visitDirectory(_ path: String, root: String) {
            let canonical = fileSystem.identity(of: path) ?? path
            if ancestors.contains(canonical) {
                report(.warning, .symlinkLoop, "'\(path)' leads back to a directory that contains it (a symbolic link loop), so it is skipped", path: path)
                return
            }
            guard seen.insert(canonical).inserted else {
                report(.note, .alreadyLoaded, "'\(path)' was already read through another path, so it is not read twice", path: path)
                return
            }
            let names: [String]
            do {
                names = try fileSystem.contentsOfDirectory(at: path).sorted()
            } catch {
                report(.error, .unreadable, "the directory '\(path)' could not be read: \(error)", path: path)
                return
            }
            if names.contains("package.json") {
                let manifestPath = LibraryPath.join(path, "package.json")
                if case .file(let size) = fileSystem.item(at: manifestPath), visitManifest(at: manifestPath, size: size) {
                    return
                }
            }
            let rules = FormatRegistry.directoryRules(path, names: names, root: root)
            if rules.skips { return }
            let changesBefore = contextChanges.count
            contextChanges += rules.changes
            defer { contextChanges.removeLast(contextChanges.count - changesBefore) }
            // Files first, then subdirectories, each in sorted order: SnipMate reads `c.snippets` and `c_*.snippets`
            // before `c/*.snippets`, and `snippet!` overrides depend on that order.
            var subdirectories: [String] = []
            for name in names where !name.hasPrefix(".") || FormatRegistry.hiddenFileNames.contains(name) {
                let child = LibraryPath.join(path, name)
                switch fileSystem.item(at: child) {
                case .directory:
                    if !name.hasPrefix(".") { subdirectories.append(child) }
                case .file(let size):
                    examined?.append(child)
                    if var context = FormatRegistry.context(forFileAt: child, root: root) {
                        for (format, change) in contextChanges where format == context.format { context = change(context) }
                        visitFile(child, context: context, size: size)
                    }
                case .unusable(let reason):
                    report(.error, .unusablePath, "'\(child)' cannot be used: \(reason)", path: child)
                case .missing:
                    // Listed but gone: a dangling symbolic link or a file removed while walking.
                    report(.warning, .unusablePath, "'\(child)' is listed but cannot be found (a dangling symbolic link?)", path: child)
                }
            }
            ancestors.insert(canonical)
            for child in subdirectories {
                visitDirectory(child, root: root)
            }
            ancestors.remove(canonical)
        }

        /// Applies SnipMate's `snippet!` (replace earlier snippets with the trigger in the same scope) and
        /// `snippet!!` (remove the trigger), and UltiSnips' `clearsnippets`, in load order, reporting each as a note
        /// on the overriding file. Victims are found through `OverrideIndex`, never by scanning earlier snippets, so
        /// resolving costs the library's snippets plus the overrides, not their product.
        mutating func resolveOverrides() {
            guard !overrides.isEmpty else { return }
            var index = OverrideIndex(files: files)
            var removed: [Int: Set<Int>] = [:]
            for (fileIndex, override) in overrides {
                let format = files[fileIndex].format
                let victims: [OverrideIndex.Position]
                switch override.kind {
                case .replace:
                    // `snippet!` looks back in load order: the snippets before it in its own file and earlier files.
                    let bound = OverrideIndex.Position(file: fileIndex, snippet: override.snippetIndex ?? Int.max)
                    victims = index.takeReplaced(format: format, scopes: override.scopes, trigger: override.trigger, before: bound, removed: removed)
                case .clear(let priority):
                    // `clearsnippets` goes by priority alone, as UltiSnips does.
                    victims = index.takeCleared(format: format, scopes: override.scopes, trigger: override.trigger, upTo: priority, removed: removed)
                }
                for victim in victims { removed[victim.file, default: []].insert(victim.snippet) }
                let places = victims.map { victim -> String in
                    let line = files[victim.file].snippets[victim.snippet].location.range.start.line + 1
                    return victim.file == fileIndex ? "line \(line)" : "\(files[victim.file].path):\(line)"
                }
                let what = places.isEmpty ? "no earlier snippet" : "the earlier snippet(s) at " + places.joined(separator: ", ")
                let code: DiagnosticCode
                let message: String
                switch override.kind {
                case .replace:
                    let action = override.snippetIndex == nil ? "'snippet!!' removes" : "'snippet!' replaces"
                    (code, message) = (.snippetOverride, "\(action) \(what) with trigger '\(override.trigger)'")
                case .clear(let priority):
                    let which = override.trigger.isEmpty ? "" : " with trigger '\(override.trigger)'"
                    let cleared = places.isEmpty ? "no snippet" : "the snippet(s) at " + places.joined(separator: ", ")
                    (code, message) = (UltiSnipsCode.clear, "'clearsnippets' removes \(cleared)\(which) (priority \(priority) or lower)")
                }
                files[fileIndex].diagnostics.append(
                    LibraryDiagnostic(
                        uri: files[fileIndex].uri, position: override.position, severity: .note, code: code, message: message))
            }
            for (fileIndex, indices) in removed {
                files[fileIndex].snippets = files[fileIndex].snippets.enumerated().filter { !indices.contains($0.offset) }.map(\.element)
            }
            for index in Set(overrides.map(\.fileIndex)) {
                files[index].diagnostics.sort { $0.position < $1.position }
            }
        }
    }
}
