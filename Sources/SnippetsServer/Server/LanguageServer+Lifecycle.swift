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
        client = ClientCapabilities(raw: initializeParams.capabilities, clientName: initializeParams.clientInfo?.name)
        positionEncoding = Self.negotiateEncoding(offered: client.positionEncodings)
        if let folders = initializeParams.workspaceFolders, !folders.isEmpty {
            workspaceFolders = folders.compactMap { Self.path(ofFileURI: $0.uri) }
        } else if let root = initializeParams.rootUri.flatMap(Self.path(ofFileURI:)) ?? initializeParams.rootPath {
            workspaceFolders = [root]
        }
        var (newSettings, problems) = settings.applying(initializeParams.initializationOptions)
        problems += ModelSettings.environmentProblems(newSettings.model, environment: configuration.environment)
        settings = newSettings
        phase = .running
        scheduleReload()

        var capabilities = ServerCapabilities(
            positionEncoding: positionEncoding,
            textDocumentSync: TextDocumentSyncOptions(openClose: true, change: .incremental),
            workspace: WorkspaceServerCapabilities(workspaceFolders: .init(supported: true)))
        if !client.supportsCompletionRegistration {
            await waitForFirstLoad()
            let words = client.completesOnlyOnTriggerCharacters
            let characters =
                snapshot.generation > 0
                ? TriggerCharacters.advertised(for: snapshot.library, includingWordCharacters: words)
                : TriggerCharacters.fallback(includingWordCharacters: words)
            advertisedTriggerCharacters = characters
            capabilities.completionProvider = CompletionOptions(resolveProvider: true, triggerCharacters: characters)
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
        for problem in problems { showMessage(problem.message, type: .warning) }
    }

    /// Waits until the first library load is in service, or `firstLoadWait` has passed.
    func waitForFirstLoad() async {
        guard snapshot.generation == 0 else { return }
        let clock = ContinuousClock()
        let deadline = clock.now + configuration.firstLoadWait
        while snapshot.generation == 0, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
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
                clientIsReady = true
                startWatching()
                if snapshot.generation > 0 { announceLoadedLibrary() }
            case "textDocument/didOpen":
                let item = try (params ?? .null).decode(DidOpenTextDocumentParams.self).textDocument
                documents.open(TextDocument(uri: item.uri, languageID: item.languageId, version: item.version, text: item.text))
                publishDiagnostics(forOpened: item.uri)
            case "textDocument/didChange":
                documents.change(try (params ?? .null).decode(DidChangeTextDocumentParams.self), encoding: positionEncoding)
            case "textDocument/didClose":
                documents.close(uri: try (params ?? .null).decode(DidCloseTextDocumentParams.self).textDocument.uri)
            case "workspace/didChangeConfiguration":
                changeConfiguration(params?["settings"] ?? .null)
            case "workspace/didChangeWatchedFiles":
                scheduleReload()
            case "workspace/didChangeWorkspaceFolders":
                changeWorkspaceFolders(try (params ?? .null).decode(DidChangeWorkspaceFoldersParams.self))
            default:
                break
            }
        } catch {
            log("ignored \(method): \(ResponseError.from(error).message)")
        }
    }

    private func changeConfiguration(_ json: JSONValue) {
        var (newSettings, problems) = settings.applying(json)
        if let keyProblem = ModelSettings.keepingKeyDestination(of: settings.model, in: &newSettings.model) {
            problems.append(keyProblem)
        }
        if newSettings.model != settings.model {
            problems += ModelSettings.environmentProblems(newSettings.model, environment: configuration.environment)
        }
        let librariesChanged = newSettings.libraries != settings.libraries || newSettings.learning != settings.learning
        settings = newSettings
        for problem in problems { showMessage(problem.message, type: .warning) }
        if librariesChanged {
            startWatching()
            scheduleReload()
        } else {
            scheduleQualification()
        }
    }

    private func changeWorkspaceFolders(_ params: DidChangeWorkspaceFoldersParams) {
        let removed = Set(params.event.removed.compactMap { Self.path(ofFileURI: $0.uri) })
        workspaceFolders.removeAll { removed.contains($0) }
        for folder in params.event.added.compactMap({ Self.path(ofFileURI: $0.uri) }) where !workspaceFolders.contains(folder) {
            workspaceFolders.append(folder)
        }
        startWatching()
        scheduleReload()
    }

    /// The file system path of a `file://` URI (percent-decoded), or nil for other schemes.
    static func path(ofFileURI uri: String) -> String? {
        guard let url = URL(string: uri), url.isFileURL else { return nil }
        return url.path
    }
}
