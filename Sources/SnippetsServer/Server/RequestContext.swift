import SnippetsCore

/// Everything a handler may read, fixed when its request is taken off the queue, and the effects it may cause
/// (`RequestEffects`): a handler never reaches the server itself.
public struct RequestContext: Sendable {
    /// The request being answered.
    public let id: RequestID
    /// The position encoding negotiated at `initialize`; every `Position` in and out uses it.
    public let positionEncoding: PositionEncoding
    /// The library and index in service (an immutable snapshot; reloads swap in a new one).
    public let library: LibrarySnapshot
    /// The open documents.
    public let documents: DocumentStore
    /// The user's settings.
    public let settings: ServerSettings
    /// What the client can do.
    public let client: ClientCapabilities
    /// Workspace folder paths (from `workspaceFolders`, else `rootUri`).
    public let workspaceFolders: [String]
    /// How the server was started (environment, clock, loaders).
    public let configuration: ServerConfiguration
    /// Measures the configured model on the library (its standing never waits; see `ModelQualifier`).
    let qualifier: ModelQualifier
    let effects: RequestEffects
    /// The layers fixed at start, which bound what a later settings change may make writable (`LibrarySelection`).
    var startLayers: [LibraryLayer]? = nil

    /// Which library the settings choose (layers, paths, learning), as of this request.
    var librarySelection: LibrarySelection {
        LibrarySelection(
            settings: settings, configuration: configuration, workspaceFolders: workspaceFolders, startLayers: startLayers)
    }

    /// The library layers in precedence order, names unique.
    var libraryLayers: [LibraryLayer] { librarySelection.layers }
    /// The layers every write is checked against (`LibrarySelection.writeLayers`).
    var writeLayers: [LibraryLayer] { librarySelection.writeLayers }

    /// The paths the library is loaded from.
    var libraryPaths: [String] { librarySelection.libraryPaths }

    /// Whether ask learns: the `learning` setting, unless `serve --no-learning` switched it off.
    var isLearning: Bool { librarySelection.isLearning }

    /// Throws `CancellationError` once the client has cancelled this request; call it between slow steps.
    public func checkCancellation() throws { try Task.checkCancellation() }

    /// Sends a notification to the client.
    public func notify<Params: Encodable & Sendable>(_ method: String, _ params: Params) async {
        guard let json = encoded(params, for: method) else { return }
        await effects.notify(method, json)
    }

    /// Sends a request to the client (`workspace/applyEdit`); its reply is only logged if it is an error.
    func sendRequest<Params: Encodable & Sendable>(_ method: String, _ params: Params) async {
        guard let json = encoded(params, for: method) else { return }
        await effects.request(method, json)
    }

    /// Logs to stderr and, for what the user should see, `window/logMessage` (type 3 info).
    public func log(_ message: String, toClient: Bool = false) async {
        await effects.log(message, toClient)
    }

    /// Shows `message` to the user (`window/showMessage`).
    func showMessage(_ message: String, type: MessageType) async {
        await effects.showMessage(message, type)
    }

    /// Reloads the library now and returns the snapshot in service once a load that started after this call is in
    /// service (what a handler that wrote into the library replies about).
    func reloadAndWait() async -> LibrarySnapshot {
        await effects.reloadAndWait()
    }

    /// The server-side time per method so far (`snippets/stats`).
    func requestTimings() async -> StatsResult {
        await effects.requestTimings()
    }

    private func encoded<Params: Encodable>(_ params: Params, for method: String) -> JSONValue? {
        do {
            return try JSONValue(encoding: params)
        } catch {
            configuration.logError("snippets-lsp: could not encode \(method): \(error)")
            return nil
        }
    }
}

/// What a handler may cause besides its reply, bound by the server to the parts that do it (`ClientConnection`,
/// `LibraryService`, the request loop's timings).
struct RequestEffects: Sendable {
    /// Sends a notification.
    let notify: @Sendable (_ method: String, _ params: JSONValue) async -> Void
    /// Sends a request to the client.
    let request: @Sendable (_ method: String, _ params: JSONValue) async -> Void
    /// Logs to stderr, and with `toClient` as `window/logMessage`.
    let log: @Sendable (_ message: String, _ toClient: Bool) async -> Void
    /// `window/showMessage`.
    let showMessage: @Sendable (_ message: String, _ type: MessageType) async -> Void
    /// `LibraryService.reloadAndWait`.
    let reloadAndWait: @Sendable () async -> LibrarySnapshot
    /// The figures `snippets/stats` reports.
    let requestTimings: @Sendable () async -> StatsResult
}
