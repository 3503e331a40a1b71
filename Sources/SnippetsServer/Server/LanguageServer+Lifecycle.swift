import Foundation
import SnippetsCore

extension LanguageServer {
    /// The server's name in `serverInfo`.
    static let serverName = "snippets-lsp"
    /// The server's version in `serverInfo` (and `snippets-lsp --version`).
    public static let serverVersion = "0.1.0"

    /// Picks the position encoding: the first of the client's `general.positionEncodings` (its order of
    /// preference) that the server supports; UTF-16 when the client offers none, as LSP requires.
    public static func negotiateEncoding(offered: [String]) -> PositionEncoding {
        offered.lazy.compactMap(PositionEncoding.init(rawValue:)).first ?? .utf16
    }

    /// `initialize`: reads the client, the workspace and the settings, and starts loading the library. A client
    /// that can register completion later gets its `triggerCharacters` by registration once the library is read;
    /// any other client's reply waits (at most `firstLoadWait`) for the first load, so the trigger characters it
    /// is given come from the library.
    func initialize(_ params: JSONValue?) async -> Result<JSONValue, ResponseError> {
        let initializeParams: InitializeParams
        do {
            initializeParams = try (params ?? .object([:])).decode(InitializeParams.self)
        } catch {
            return .failure(ResponseError.from(error))
        }
        registrations.initialize(ClientCapabilities(raw: initializeParams.capabilities, clientName: initializeParams.clientInfo?.name))
        positionEncoding = Self.negotiateEncoding(offered: client.positionEncodings)
        if let folders = initializeParams.workspaceFolders, !folders.isEmpty {
            workspaceFolders = folders.compactMap { DocumentURI($0.uri).filePath }
        } else if let root = initializeParams.rootUri.flatMap({ DocumentURI($0).filePath }) ?? initializeParams.rootPath {
            workspaceFolders = [root]
        }
        var (newSettings, problems) = settings.applying(initializeParams.initializationOptions)
        problems += ModelSettings.environmentProblems(newSettings.model, environment: configuration.environment)
        settings = newSettings
        startSettings = newSettings
        startLayers = selection.layers
        phase = .running
        await library.select(selection)
        if let key = triggerCharacterKey { firstLoadMemory = (key, selection.watchedRoots, Date()) }
        let remembered = client.supportsCompletionRegistration ? nil : rememberedTriggerCharacters()
        // A reply that does not wait for the load lets the first document's language be read first.
        let replyWaitsForLoad = !client.supportsCompletionRegistration && remembered == nil
        await library.scheduleReload(firstLanguageWithin: replyWaitsForLoad ? nil : configuration.firstLanguageGrace)
        // The language the last session opened first is read now, while the client takes the reply and opens the
        // document (most sessions of a project open the same kind of file first).
        if let language = remembered?.firstLanguage { await library.loadFiles(forLanguage: language) }

        var capabilities = ServerCapabilities(
            positionEncoding: positionEncoding,
            textDocumentSync: TextDocumentSyncOptions(openClose: true, change: .incremental),
            workspace: WorkspaceServerCapabilities(workspaceFolders: .init(supported: true)))
        if !client.supportsCompletionRegistration {
            if let characters = remembered?.characters {
                capabilities.completionProvider = registrations.completionProvider(remembered: characters)
            } else {
                let snapshot = await library.firstSnapshot(within: configuration.firstLoadWait)
                capabilities.completionProvider = registrations.completionProvider(for: snapshot)
            }
        }
        capabilities = capabilities.merging(registry.contributedCapabilities)
        let result = InitializeResult(
            capabilities: capabilities, serverInfo: .init(name: Self.serverName, version: Self.serverVersion))
        // The reply goes out first (it is returned); the warnings follow it.
        Task { self.afterInitialize(problems) }
        do {
            return .success(try JSONValue(encoding: result))
        } catch {
            return .failure(ResponseError.from(error))
        }
    }

    private func afterInitialize(_ problems: [ServerSettings.Problem]) {
        for problem in problems { connection.showMessage(problem.message, type: .warning) }
    }

    /// Applies a notification. Before `initialize` only `exit` counts; unknown notifications are ignored.
    func handleNotification(_ method: String, params: JSONValue?) async {
        if method == "exit" {
            exitStatus = phase == .shutDown ? 0 : 1
            return
        }
        guard phase == .running else { return }
        do {
            switch method {
            case "initialized":
                registrations.clientIsReady()
                await startWatching()
                // A load in service before this (the first load's interim included) waited for it. Should a load's own
                // announcement run meanwhile too, the second says nothing new (each part says only what changed),
                // but for the path problems' diagnostics, published again.
                let snapshot = await library.snapshot
                if snapshot.generation > 0 { announce(snapshot) }
            case "textDocument/didOpen":
                let item = try (params ?? .null).decode(DidOpenTextDocumentParams.self).textDocument
                documents.open(TextDocument(uri: item.uri, languageID: item.languageId, version: item.version, text: item.text))
                if firstOpenedLanguage == nil { firstOpenedLanguage = item.languageId }
                diagnostics.publish(forOpened: item.uri, encoding: positionEncoding)
                // Before the library is in service, the first keystroke's completion needs only this language's files.
                await library.loadFiles(forLanguage: item.languageId)
            case "textDocument/didChange":
                documents.change(try (params ?? .null).decode(DidChangeTextDocumentParams.self), encoding: positionEncoding)
            case "textDocument/didClose":
                documents.close(uri: try (params ?? .null).decode(DidCloseTextDocumentParams.self).textDocument.uri)
            case "workspace/didChangeConfiguration":
                await changeConfiguration(params?["settings"] ?? .null)
            case "workspace/didChangeWatchedFiles":
                await library.scheduleReload()
            case "workspace/didChangeWorkspaceFolders":
                await changeWorkspaceFolders(try (params ?? .null).decode(DidChangeWorkspaceFoldersParams.self))
            default:
                break
            }
        } catch {
            connection.log("ignored \(method): \(ResponseError.from(error).message)")
        }
    }

    private func changeConfiguration(_ json: JSONValue) async {
        var (newSettings, problems) = settings.applying(json)
        if let startSettings { problems += Self.keepingStartTrust(of: startSettings, current: settings, in: &newSettings) }
        if let keyProblem = ModelSettings.keepingKeyDestination(of: settings.model, in: &newSettings.model) {
            problems.append(keyProblem)
        }
        if newSettings.model != settings.model {
            problems += ModelSettings.environmentProblems(newSettings.model, environment: configuration.environment)
        }
        let librariesChanged = newSettings.libraries != settings.libraries || newSettings.learning != settings.learning
        settings = newSettings
        for problem in problems { connection.showMessage(problem.message, type: .warning) }
        if librariesChanged {
            // The reload first: the watcher then counts only edits made after it began.
            await library.select(selection)
            await library.scheduleReload()
            await startWatching()
        } else {
            scheduleQualification(of: await library.snapshot)
        }
    }

    /// Applies the rule for `workspace/didChangeConfiguration`, whose settings a repository can supply (VS Code
    /// sends the merged `snippets` section; eglot reads `.dir-locals.el`): what the server trusts is fixed at start
    /// (command line or `initializationOptions`). A change may narrow it, never widen it: `saveTo` stays as it was
    /// at start (layers are bounded by `LibrarySelection`'s `startLayers`); the model's URL, where library text
    /// goes, stays the start one (a change may switch the model off, or back on at that URL); and its role may only
    /// drop to `ignored` or back to the start role, never rise above what was measured or forced at start. Each
    /// refused member keeps its current value, and a problem says so.
    static func keepingStartTrust(
        of start: ServerSettings, current: ServerSettings, in changed: inout ServerSettings
    ) -> [ServerSettings.Problem] {
        var problems: [ServerSettings.Problem] = []
        let restart = "is taken only when the server starts (initializationOptions or the command line), never from a settings change, which a repository's settings can make"
        if changed.saveTo != start.saveTo, changed.saveTo != current.saveTo {
            changed.saveTo = current.saveTo
            problems.append(.init(name: "saveTo", message: "setting 'snippets.saveTo' \(restart); saving where it did until the server is restarted with it"))
        }
        if let model = changed.model, model.baseURL != start.model?.baseURL {
            changed.model = current.model
            let kept = current.model.map { "keeping \($0.baseURL.absoluteString)" } ?? "asking without a model"
            problems.append(.init(name: "model.url", message: "setting 'snippets.model.url' \(restart); \(kept) until the server is restarted with it"))
        }
        let role = changed.modelRole
        if role != start.modelRole, role != .ignored, start.modelRole != .trusted {
            changed.modelRole = current.modelRole
            problems.append(.init(
                name: "model.role",
                message: "setting 'snippets.model.role' may only be lowered by a settings change (to \"ignored\"); \"\(role.rawValue)\" \(restart); keeping \"\(current.modelRole.rawValue)\""))
        }
        return problems
    }

    private func changeWorkspaceFolders(_ params: DidChangeWorkspaceFoldersParams) async {
        let removed = Set(params.event.removed.compactMap { DocumentURI($0.uri).filePath })
        workspaceFolders.removeAll { removed.contains($0) }
        for folder in params.event.added.compactMap({ DocumentURI($0.uri).filePath }) where !workspaceFolders.contains(folder) {
            workspaceFolders.append(folder)
        }
        await library.select(selection)
        await library.scheduleReload()
        await startWatching()
    }

    /// Watches the library: through the client's file watcher when it can register one, and by a cheap periodic
    /// check of file sizes and modification times for what the client will not watch (everything when it cannot
    /// register, else the roots outside its workspace folders).
    func startWatching() async {
        let selection = selection
        let watchedByClient = registrations.registerFileWatchers(for: selection.watchedRoots)
        await library.watch(watchedByClient ? selection.watchedRootsOutsideWorkspace : selection.watchedRoots)
    }

    /// The watched roots that lie inside none of the workspace folders (see `LibrarySelection`).
    var watchedRootsOutsideWorkspace: [String] { selection.watchedRootsOutsideWorkspace }

    /// The read-only layer `path` is in, if any (see `LibrarySelection.readOnlyLayer(containing:)`).
    func readOnlyLayer(containing path: String) -> LibraryLayer? {
        selection.readOnlyLayer(containing: path)
    }

    /// What follows a load once its snapshot is in service: its problems published, and (once the client sent
    /// `initialized`) the client told; then the model measured on it.
    func libraryInstalled(_ snapshot: LibrarySnapshot, problems: LoadProblems) {
        diagnostics.install(problems, documents: documents, encoding: positionEncoding)
        if registrations.isClientReady { announce(snapshot) }
        keepTriggerCharacters(of: snapshot)
        scheduleQualification(of: snapshot)
        embedForMeaning(snapshot)
    }

    /// What `TriggerCharacterMemory` keeps for this library and client, when the client cannot register completion
    /// later and a list is kept at all.
    private var triggerCharacterKey: TriggerCharacterMemory.Key? {
        guard !client.supportsCompletionRegistration, configuration.triggerCharacterMemory != nil,
            configuration.libraryStamps != nil
        else { return nil }
        return TriggerCharacterMemory.Key(
            layers: selection.layers, workspaceFolders: workspaceFolders,
            includingWordCharacters: client.completesOnlyOnTriggerCharacters)
    }

    /// The trigger characters the last load of this very library gave (`TriggerCharacterMemory`), when its files
    /// are unchanged since: `initialize` then needs no load. One walk of the library's files (no read), only when a
    /// list is kept for it.
    private func rememberedTriggerCharacters() -> TriggerCharacterMemory.Recalled? {
        guard let first = firstLoadMemory, let memory = configuration.triggerCharacterMemory, memory.hasList(for: first.key),
            let stampsOf = configuration.libraryStamps
        else { return nil }
        return memory.recall(first.key, adoptingInto: configuration.libraryWalk) { stampsOf(first.roots) }
    }

    /// Keeps the trigger characters of the first load's `snapshot` (the whole library) for the next start, in the
    /// background, when no file under the library's roots changed since that load was scheduled (so they are that
    /// load's, read for the key and roots of `initialize`). Later loads keep nothing: the next start waits once.
    private func keepTriggerCharacters(of snapshot: LibrarySnapshot) {
        guard snapshot.generation == 1, let first = firstLoadMemory, let memory = configuration.triggerCharacterMemory,
            let stampsOf = configuration.libraryStamps
        else { return }
        let words = client.completesOnlyOnTriggerCharacters
        let libraryWalk = configuration.libraryWalk
        let language = firstOpenedLanguage
        Task.detached(priority: .utility) {
            await LibraryService.offCooperativeThreads {
                let walk = libraryWalk?.walk(under: first.roots)
                let stamps = walk?.stamps ?? stampsOf(first.roots)
                // A file added, edited or removed since (a folder's stamp changes when an entry is removed).
                guard !stamps.values.contains(where: { $0.modified >= first.began }),
                    !(walk?.folders.values.contains { ($0?.modified ?? .distantPast) >= first.began } ?? false)
                else { return }
                let characters = TriggerCharacters.advertised(for: snapshot.library, includingWordCharacters: words)
                memory.keep(characters, for: first.key, stamps: stamps, walk: walk, firstLanguage: language)
            }
        }
    }

    /// What follows reading the files one language needs before the first load is in service: a client that
    /// waits for a registration may complete from now on (the first load registers again if its characters differ).
    func languageFilesRead(_ snapshot: LibrarySnapshot) {
        if registrations.isClientReady { registrations.updateTriggerCharacters(for: snapshot) }
    }

    /// Starts embedding `snapshot` for meaning search in the background (see `MeaningService`), with `$/progress`
    /// for a client that shows progress the server starts; or records why meaning search is off.
    func embedForMeaning(_ snapshot: LibrarySnapshot) {
        guard let service = configuration.meaning else {
            snapshot.askFacts.meaning.turnOff(because: configuration.meaningOffReason ?? MeaningSetup.offReason)
            return
        }
        let reporter = MeaningProgressReporter(
            connection: connection, showsProgress: registrations.client.supportsWorkDoneProgress, generation: snapshot.generation)
        service.embedInBackground(snapshot) { done, total, finished in reporter.report(done: done, total: total, finished: finished) }
    }

    /// What the client hears once a load is in service and it has sent `initialized`: the trigger characters (by
    /// registration, when it allows one and they changed), and the library's path problems and broken files
    /// (`DiagnosticsPublisher.announce`).
    private func announce(_ snapshot: LibrarySnapshot) {
        registrations.updateTriggerCharacters(for: snapshot)
        diagnostics.announce(snapshot.library, paths: selection.paths, documents: documents, encoding: positionEncoding)
    }

    /// Starts measuring the configured model on `snapshot`, in the background, when the role is `auto` and it has
    /// not been measured on this snapshot (see `ModelQualifier`).
    func scheduleQualification(of snapshot: LibrarySnapshot) {
        guard configuration.measuresModels, let model = settings.model, settings.modelRole == .auto, snapshot.generation > 0
        else { return }
        let environment = configuration.environment
        let connection = connection
        Task {
            _ = await qualifier.standing(
                of: model, setting: .auto, snapshot: snapshot, environment: environment, measuring: true,
                log: { line in connection.log(line) })
        }
    }
}
