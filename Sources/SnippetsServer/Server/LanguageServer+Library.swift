import Foundation
import SnippetsCore

extension LanguageServer {
    /// The paths the library is loaded from: the `libraries` setting, else the default paths. The workspace
    /// folders' `.vscode/*.code-snippets` files are added by the loader.
    var libraryPaths: [String] {
        (settings.libraries ?? configuration.defaultLibraryPaths).map(Self.expandingTilde)
    }

    /// The directories (or files) to watch: the configured paths and each workspace folder's `.vscode`.
    var watchedRoots: [String] {
        libraryPaths + workspaceFolders.map { ($0 as NSString).appendingPathComponent(".vscode") }
    }

    private static func expandingTilde(_ path: String) -> String {
        (path as NSString).expandingTildeInPath
    }

    /// Loads the library off the request loop and swaps the new snapshot in when it is ready. Reloads asked for
    /// while one runs are folded into one more run.
    func scheduleReload() {
        guard reloadTask == nil else {
            reloadRequested = true
            return
        }
        let paths = libraryPaths
        let workspaceRoots = workspaceFolders
        let loader = configuration.loadLibrary
        var lastGood = self.lastGood
        let generation = snapshot.generation + 1
        reloadTask = Task.detached(priority: .utility) {
            var loaded = loader(paths, [])
            if !workspaceRoots.isEmpty {
                // The user's own library goes into service first: project snippets come from a repository someone
                // opened, and a slow or hostile `.vscode/*.code-snippets` must not keep completion waiting for it.
                var interim = lastGood
                let own = interim.serving(loaded)
                await self.installInterim(LibrarySnapshot(library: own, index: TokenIndex(library: own), generation: generation))
                loaded = loaded.adding(loader([], workspaceRoots))
            }
            let served = lastGood.serving(loaded)
            let snapshot = LibrarySnapshot(library: served, index: TokenIndex(library: served), generation: generation)
            await self.install(snapshot, lastGood: lastGood, loaded: loaded)
        }
    }

    /// Serves the user's own library while the project snippets still load; a newer snapshot is never replaced.
    private func installInterim(_ interim: LibrarySnapshot) {
        guard interim.generation >= snapshot.generation else { return }
        snapshot = interim
    }

    /// How many library problems one load writes to stderr.
    static let loggedProblemLimit = 20

    private func install(_ newSnapshot: LibrarySnapshot, lastGood: LastGoodFiles, loaded: SnippetLibrary) {
        snapshot = newSnapshot
        self.lastGood = lastGood
        reloadTask = nil
        var byFile: [String: [LibraryDiagnostic]] = [:]
        for diagnostic in loaded.diagnostics { byFile[Self.fileKey(diagnostic.uri), default: []].append(diagnostic) }
        libraryDiagnostics = byFile
        let library = newSnapshot.library
        let broken = loaded.files.filter(\.hasErrors).count
        var summary = "loaded \(library.snippets.count) snippets from \(library.files.count) files"
        if broken > 0 {
            summary += "; \(broken) \(broken == 1 ? "file has" : "files have") errors (the last good snippets of each stay in service)"
        }
        log(summary, toClient: true)
        let problems = loaded.diagnostics
        for problem in problems.prefix(Self.loggedProblemLimit) {
            let path = Self.path(ofFileURI: problem.uri) ?? problem.uri
            log("\(path):\(problem.position.line + 1):\(problem.position.utf8Column + 1): \(problem.severity.rawValue): \(problem.message) [\(problem.code)]")
        }
        if problems.count > Self.loggedProblemLimit {
            log("... and \(problems.count - Self.loggedProblemLimit) more problems (run `snippets-lsp check` to see them all)")
        }
        refreshPublishedDiagnostics()
        if reloadRequested {
            reloadRequested = false
            scheduleReload()
        }
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

    private func publish(_ problems: [LibraryDiagnostic], to uri: String) {
        let key = Self.fileKey(uri)
        if problems.isEmpty { publishedDiagnostics.remove(key) } else { publishedDiagnostics.insert(key) }
        let diagnostics = problems.map { problem in
            let position = Position(sourcePosition: problem.position, in: positionEncoding)
            return Diagnostic(
                range: LSPRange(start: position, end: position),
                severity: problem.severity == .error ? 1 : problem.severity == .warning ? 2 : 3,
                code: problem.code, source: Self.serverName, message: problem.message)
        }
        sendNotification("textDocument/publishDiagnostics", PublishDiagnosticsParams(uri: uri, diagnostics: diagnostics))
    }

    /// A file URI reduced to a comparable key (clients and the loader may percent-encode differently).
    static func fileKey(_ uri: String) -> String {
        path(ofFileURI: uri).map { ($0 as NSString).standardizingPath } ?? uri
    }

    /// Watches the library: through the client's file watcher when it can register one, else by a cheap
    /// periodic check of file sizes and modification times.
    func startWatching() {
        watcherTask?.cancel()
        watcherTask = nil
        let roots = watchedRoots
        if client.supportsWatchedFileRegistration {
            let watchers: [JSONValue] = roots.flatMap { root -> [JSONValue] in
                var isDirectory: ObjCBool = false
                let exists = FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory)
                if exists && !isDirectory.boolValue { return [["globPattern": .string(root)]] }
                return [["globPattern": .string(root + "/**/*")]]
            }
            let registration: JSONValue = [
                "registrations": [[
                    "id": "snippets-library-watch",
                    "method": "workspace/didChangeWatchedFiles",
                    "registerOptions": ["watchers": .array(watchers)],
                ]]
            ]
            sendRequest("client/registerCapability", registration)
            return
        }
        guard let stamps = configuration.libraryStamps else { return }
        let interval = configuration.pollInterval
        watcherTask = Task.detached(priority: .utility) { [weak self] in
            var last = stamps(roots)
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
