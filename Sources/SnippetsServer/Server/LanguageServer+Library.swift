import Foundation
import SnippetsCore

extension LanguageServer {
    /// The paths the library is loaded from: the `libraries` setting (resolved by `LibraryPaths.absolute`, exactly
    /// as `--library` is), else the default paths. The workspace folders' `.vscode/*.code-snippets` files are added
    /// by the loader.
    var libraryPaths: [String] {
        libraryLayers.map(\.path)
    }

    /// The library layers and which rule chose them.
    var resolvedLibraryPaths: LibraryPaths {
        guard let libraries = settings.libraries else {
            return LibraryPaths(layers: configuration.defaultLibraryLayers, source: configuration.defaultLibrarySource)
        }
        let layers = libraries.map { layer -> LibraryLayer in
            var layer = layer
            layer.path = LibraryPaths.absolute(layer.path, environment: configuration.environment)
            return layer
        }
        return LibraryPaths(layers: layers, source: .setting)
    }

    /// The library layers in precedence order: the `libraries` setting, else the default layers; names unique.
    var libraryLayers: [LibraryLayer] {
        LibraryLayer.uniquelyNamed(resolvedLibraryPaths.layers).layers
    }

    /// The read-only layer `path` is in, if any (see `LayerLoading.readOnlyLayer(containing:in:)`): whatever writes
    /// into the library (saving a snippet, learned words) refuses when this is not nil, naming the layer
    /// (`SaveSelection.readOnlyRefusal`).
    func readOnlyLayer(containing path: String) -> LibraryLayer? {
        LayerLoading.readOnlyLayer(containing: LibraryPaths.absolute(path, environment: configuration.environment), in: libraryLayers)
    }

    /// The directories (or files) to watch: the configured paths, each workspace folder's `.vscode`, and the git
    /// state (`HEAD`, index, refs) of repositories holding a layer, so a commit or pull updates the revision.
    var watchedRoots: [String] {
        libraryPaths + workspaceFolders.map { ($0 as NSString).appendingPathComponent(".vscode") }
            + LayerLoading.gitWatchedPaths(for: libraryPaths)
    }

    /// Whether ask learns: the `learning` setting, unless `serve --no-learning` switched it off.
    var isLearning: Bool { settings.learning && !configuration.learningDisabled }

    /// Loads the library off the request loop and swaps the new snapshot in when it is ready. Reloads asked for
    /// while one runs are folded into one more run.
    func scheduleReload() {
        guard reloadTask == nil else {
            reloadRequested = true
            return
        }
        let layers = libraryLayers
        let workspaceRoots = workspaceFolders
        let loader = configuration.loadLibrary
        let annotate = configuration.annotateLibrary
        let loadLearned = isLearning ? configuration.loadLearnedWords : nil
        let lastGood = self.lastGood
        let generation = snapshot.generation + 1
        reloadTask = Task.detached(priority: .utility) {
            // On the first load the user's own library goes into service as soon as it is read and indexed: what
            // is learned from the library as a whole (conflicts, revisions) follows, and so do project snippets,
            // which come from a repository someone opened (a slow or hostile `.vscode/*.code-snippets` must not keep
            // completion waiting). Later reloads need no interim (and no second index): the last snapshot serves.
            let (own, interim) = await Self.offCooperativeThreads { () -> (SnippetLibrary, LibrarySnapshot?) in
                let own = loader(layers, [])
                guard generation == 1 else { return (own, nil) }
                var interimLastGood = lastGood
                let served = interimLastGood.serving(own)
                let learned = loadLearned?(layers.map(\.path), served) ?? .none
                return (own, LibrarySnapshot(library: served, index: TokenIndex(library: served), generation: generation, learned: learned))
            }
            if let interim { await self.installInterim(interim) }
            let (snapshot, newLastGood, problems) = await Self.offCooperativeThreads { () -> (LibrarySnapshot, LastGoodFiles, LoadProblems) in
                var loaded = own
                if !workspaceRoots.isEmpty {
                    loaded = loaded.adding(loader([], workspaceRoots))
                }
                loaded = annotate(loaded)
                var newLastGood = lastGood
                let served = newLastGood.serving(loaded)
                let snapshot: LibrarySnapshot
                if let interim, let index = interim.index?.serving(served) {
                    // The same snippets, annotated: the interim's index and learned words stay valid.
                    snapshot = LibrarySnapshot(library: served, index: index, generation: generation, learned: interim.learned)
                } else {
                    let learned = loadLearned?(layers.map(\.path), served) ?? .none
                    snapshot = LibrarySnapshot(library: served, index: TokenIndex(library: served), generation: generation, learned: learned)
                }
                return (snapshot, newLastGood, LoadProblems(loaded: loaded, learned: snapshot.learned))
            }
            await self.install(snapshot, lastGood: newLastGood, problems: problems)
            // After the swap, so completions are served first: the first ask then finds its facts ready.
            await Self.offCooperativeThreads { snapshot.askFacts.prepare(index: snapshot.index) }
        }
    }

    /// Starts measuring the configured model on the library in service, in the background, when the role is `auto`
    /// and it has not been measured on this snapshot (see `ModelQualifier`).
    func scheduleQualification() {
        guard configuration.measuresModels, let model = settings.model, settings.modelRole == .auto, snapshot.generation > 0
        else { return }
        let snapshot = snapshot
        let environment = configuration.environment
        Task {
            _ = await qualifier.standing(
                of: model, setting: .auto, snapshot: snapshot, environment: environment, measuring: true,
                log: { [weak self] line in await self?.log(line) })
        }
    }

    /// Runs `work` on a Dispatch thread and waits for its result. Loading blocks a thread for as long as it takes
    /// (file reads, parsing a large library, or a slow disk): never one of Swift's cooperative threads, which are
    /// as few as the processors and which the request loop needs.
    static func offCooperativeThreads<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async { continuation.resume(returning: work()) }
        }
    }

    /// Serves the user's own library, as read, while it is annotated and the project snippets load; a newer
    /// snapshot is never replaced.
    private func installInterim(_ interim: LibrarySnapshot) {
        guard interim.generation >= snapshot.generation else { return }
        snapshot = interim
    }

    /// How many library problems one load writes to stderr.
    static let loggedProblemLimit = 20

    /// What a load found wrong, sorted out off the request loop (a large library may have a hundred thousand
    /// conflict warnings): the problems by file, how many files have errors, and the lines to log.
    struct LoadProblems: Sendable {
        var byFile: [String: [LibraryDiagnostic]] = [:]
        var brokenFiles = 0
        /// The paths of the files with errors, in library order.
        var brokenFilePaths: [String] = []
        var logLines: [String] = []
        var count = 0

        init(loaded: SnippetLibrary, learned: LearnedWords) {
            // A file's key is found once, not once per problem: `fileKey` reads the disk.
            var keys: [String: String] = [:]
            let all = loaded.diagnostics
            for diagnostic in all {
                let key = keys[diagnostic.uri] ?? LanguageServer.fileKey(diagnostic.uri)
                keys[diagnostic.uri] = key
                byFile[key, default: []].append(diagnostic)
                count += 1
            }
            brokenFilePaths = loaded.files.filter(\.hasErrors).map(\.path)
            brokenFiles = brokenFilePaths.count
            count += learned.diagnostics.count
            let logged = (all.prefix(LanguageServer.loggedProblemLimit) + learned.diagnostics)
                .prefix(LanguageServer.loggedProblemLimit)
            logLines = logged.map { problem in
                let path = LanguageServer.path(ofFileURI: problem.uri) ?? problem.uri
                return "\(path):\(problem.position.line + 1):\(problem.position.utf8Column + 1): \(problem.severity.rawValue): \(problem.message) [\(problem.code)]"
            }
        }
    }

    private func install(_ newSnapshot: LibrarySnapshot, lastGood: LastGoodFiles, problems: LoadProblems) {
        snapshot = newSnapshot
        self.lastGood = lastGood
        reloadTask = nil
        libraryDiagnostics = problems.byFile
        brokenFilePaths = problems.brokenFilePaths
        let library = newSnapshot.library
        let broken = problems.brokenFiles
        var summary = "loaded \(library.snippets.count) snippets from \(library.files.count) files"
        if broken > 0 {
            summary += "; \(broken) \(broken == 1 ? "file has" : "files have") errors (the last good snippets of each stay in service)"
        }
        if library.layers.count > 1 || library.layers.contains(where: \.isNamed) {
            summary += "; layers in precedence order: " + library.layers.map { layer in
                var roles: [String] = []
                if !layer.isNamed && layer.name != LibraryLayer.projectLayerName { roles.append("named after its folder") }
                if layer.isReadOnly { roles.append("read-only") }
                if let revision = library.layerRevisions[layer.name] { roles.append(revision.text) }
                return roles.isEmpty ? layer.name : "\(layer.name) (\(roles.joined(separator: ", ")))"
            }.joined(separator: ", ")
        }
        log(summary, toClient: true)
        for line in problems.logLines { log(line) }
        if problems.count > Self.loggedProblemLimit {
            log("... and \(problems.count - Self.loggedProblemLimit) more problems (run `snippets-lsp check` to see them all)")
        }
        refreshPublishedDiagnostics()
        if clientIsReady { announceLoadedLibrary() }
        scheduleQualification()
        if reloadRequested {
            reloadRequested = false
            scheduleReload()
        }
    }

    /// What the client hears once a load is in service and it has sent `initialized`: the trigger characters (by
    /// registration, when it allows one and they changed), and each new problem with a library path itself (a
    /// missing or unusable directory) as a warning, once, plus a diagnostic on that path for as long as it lasts.
    func announceLoadedLibrary() {
        if client.supportsCompletionRegistration {
            let characters = TriggerCharacters.advertised(
                for: snapshot.library, includingWordCharacters: client.completesOnlyOnTriggerCharacters)
            if characters != advertisedTriggerCharacters { registerCompletion(triggerCharacters: characters) }
        }
        let pathProblems = snapshot.library.loaderDiagnostics.filter { LibraryLoader.ProblemCode.pathProblems.contains($0.code) }
        let paths = resolvedLibraryPaths
        for problem in pathProblems where shownPathProblems.insert(problem.uri + "\u{0}" + problem.message).inserted {
            showMessage(Self.advice(for: problem, paths: paths), type: .warning)
        }
        var byPath: [String: [LibraryDiagnostic]] = [:]
        for problem in pathProblems { byPath[problem.uri, default: []].append(problem) }
        for uri in publishedPathProblems.subtracting(byPath.keys) { publish([], to: uri) }
        for (uri, problems) in byPath { publish(problems, to: uri) }
        publishedPathProblems = Set(byPath.keys)
        announceBrokenFiles()
    }

    /// How many broken files a warning names before it counts the rest.
    static let namedBrokenFileLimit = 3

    /// Tells the user, as a warning, which snippet files have errors and how to see them: a client shows a file's
    /// problems only once it is opened, so a broken file would otherwise go unnoticed (its good snippets complete,
    /// the rest are silently missing). Said once per set of broken files, not on every reload, and not for files
    /// open in the editor, whose diagnostics show already.
    func announceBrokenFiles() {
        let current = Set(brokenFilePaths)
        guard current != announcedBrokenFiles else { return }
        announcedBrokenFiles = current
        let open = Set(documents.documents.values.map { Self.fileKey($0.uri) })
        let unseen = brokenFilePaths.filter { !open.contains(($0 as NSString).standardizingPath) }
        guard !unseen.isEmpty else { return }
        showMessage(Self.brokenFilesWarning(unseen, paths: resolvedLibraryPaths), type: .warning)
    }

    /// The warning naming broken files: up to `namedBrokenFileLimit` of them, then how many more, and the two ways
    /// to see each problem.
    static func brokenFilesWarning(_ files: [String], paths: LibraryPaths) -> String {
        let count = files.count
        var named = files.prefix(namedBrokenFileLimit).joined(separator: ", ")
        if count > namedBrokenFileLimit { named += " and \(count - namedBrokenFileLimit) more" }
        let which = count == 1 ? "1 snippet file has errors" : "\(count) snippet files have errors"
        return "snippets-lsp: \(which): \(named). \(count == 1 ? "Its" : "Their") broken entries are not offered as written. "
            + "Open \(count == 1 ? "it" : "one") to see its problems, or run `\(paths.commandLine("check"))` to list them all."
    }

    /// A path problem as the user should read it: what is wrong, where the path came from, and what to do.
    static func advice(for problem: LibraryDiagnostic, paths: LibraryPaths, mentioningDoctor: Bool = true) -> String {
        let fix: String
        switch paths.source {
        case .setting: fix = "Create it, or fix the path in your editor's snippets.libraries setting."
        case .flags: fix = "Create it, or fix the --library option the editor starts the server with."
        case .environment: fix = "Create it, or fix SNIPPETS_LIBRARY in the environment the editor starts the server in."
        case .defaultDirectory:
            fix = "Create it and put your snippet files there, or set snippets.libraries in your editor (or SNIPPETS_LIBRARY)."
        }
        let doctor = mentioningDoctor ? " `snippets-lsp doctor` shows what the server reads." : ""
        return "snippets-lsp: \(problem.message) (\(paths.sourceDescription)), so no snippets come from it. \(fix)" + doctor
    }

    /// Registers completion with `characters` as its trigger characters, replacing an earlier registration.
    private func registerCompletion(triggerCharacters characters: [String]) {
        if let old = completionRegistrationID {
            sendRequest(
                UnregistrationParams.method,
                UnregistrationParams(unregisterations: [Unregistration(id: old, method: "textDocument/completion")]))
        }
        let id = "snippets-completion-\(snapshot.generation)"
        completionRegistrationID = id
        advertisedTriggerCharacters = characters
        let options = CompletionRegistrationOptions(resolveProvider: true, triggerCharacters: characters)
        sendRequest(RegistrationParams.method, RegistrationParams(registrations: [.completion(id: id, options: options)]))
    }

    /// Publishes library problems for every open library file, and clears files whose problems are gone.
    private func refreshPublishedDiagnostics() {
        for document in documents.documents.values {
            let key = Self.fileKey(document.uri)
            let problems = libraryDiagnostics[key] ?? []
            if !problems.isEmpty || publishedDiagnostics.contains(key) {
                publish(problems, to: document.uri)
            }
        }
    }

    /// Publishes the library problems of a file the client just opened.
    func publishDiagnostics(forOpened uri: String) {
        let problems = libraryDiagnostics[Self.fileKey(uri)] ?? []
        if !problems.isEmpty { publish(problems, to: uri) }
    }

    func publish(_ problems: [LibraryDiagnostic], to uri: String) {
        let key = Self.fileKey(uri)
        if problems.isEmpty { publishedDiagnostics.remove(key) } else { publishedDiagnostics.insert(key) }
        let diagnostics = problems.map { problem in
            let position = Position(sourcePosition: problem.position, in: positionEncoding)
            return Diagnostic(
                range: LSPRange(start: position, end: position),
                severity: problem.severity == .error ? 1 : problem.severity == .warning ? 2 : problem.severity == .note ? 3 : 4,
                code: problem.code, source: Self.serverName, message: problem.message)
        }
        sendNotification("textDocument/publishDiagnostics", PublishDiagnosticsParams(uri: uri, diagnostics: diagnostics))
    }

    /// A file URI reduced to a comparable key (clients and the loader may percent-encode differently).
    static func fileKey(_ uri: String) -> String {
        path(ofFileURI: uri).map { ($0 as NSString).standardizingPath } ?? uri
    }

    /// The watched roots that lie inside none of the workspace folders. Clients watch only their workspace
    /// (eglot 1.9 watches the folders of its project's files, lsp-mode 8.0 its workspace roots), so a registration
    /// for `~/.config/snippets` is accepted and never fires: these get the periodic check as well.
    var watchedRootsOutsideWorkspace: [String] {
        let folders = workspaceFolders.map { ($0 as NSString).standardizingPath }
        return watchedRoots.filter { root in
            let path = (root as NSString).standardizingPath
            return !folders.contains { folder in path == folder || path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/") }
        }
    }

    /// Watches the library: through the client's file watcher when it can register one, and by a cheap periodic
    /// check of file sizes and modification times for what the client will not watch (everything when it cannot
    /// register, else the roots outside its workspace folders).
    func startWatching() {
        watcherTask?.cancel()
        watcherTask = nil
        var roots = watchedRoots
        if client.supportsWatchedFileRegistration {
            let watchers = roots.map { root -> FileSystemWatcher in
                var isDirectory: ObjCBool = false
                let exists = FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory)
                return FileSystemWatcher(globPattern: exists && !isDirectory.boolValue ? root : root + "/**/*")
            }
            let registration = Registration.watchedFiles(
                id: "snippets-library-watch", options: DidChangeWatchedFilesRegistrationOptions(watchers: watchers))
            sendRequest(RegistrationParams.method, RegistrationParams(registrations: [registration]))
            roots = watchedRootsOutsideWorkspace
            if roots.isEmpty { return }
        }
        guard let stamps = configuration.libraryStamps else { return }
        let interval = configuration.pollInterval
        // Taken now, not in the task: an edit made right after `initialized` must count as a change.
        let initial = stamps(roots)
        watcherTask = Task.detached(priority: .utility) { [weak self] in
            var last = initial
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { return }
                let current = stamps(roots)
                if current != last {
                    last = current
                    await self?.scheduleReload()
                }
            }
        }
    }
}
