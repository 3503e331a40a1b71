import Foundation
import SnippetsCore

/// The language server's request loop: reads messages from a `MessageTransport`, applies them in order, and
/// answers every request exactly once. The long-lived parts are their own: `LibraryService` (loads, reloads,
/// watching, the snapshot), `DiagnosticsPublisher`, `ClientRegistrations`, `ClientConnection` (what the server
/// sends on its own); a handler gets what it may use through its `RequestContext`.
///
/// **Invariant:** requests and notifications are applied in arrival order; only `$/cancelRequest` bypasses the
/// queue (it is acted on as soon as it is read). **Invariant:** every request gets exactly one reply, built in
/// `reply(to:with:)` (or `reply(to:encoded:)` for pre-written JSON); thrown errors become a `ResponseError` through `ResponseError.from`.
public actor LanguageServer {
    /// Where the server is in the LSP lifecycle.
    enum Phase: Sendable {
        case uninitialized
        case running
        case shutDown
    }

    /// What the reader hands the in-order queue.
    enum Incoming: Sendable {
        /// A message and when its frame was read (`RequestTimings.now()`).
        case message(JSONRPCMessage, received: UInt64)
        case undecodable(JSONRPCMessage.DecodeFailure)
    }

    let configuration: ServerConfiguration
    let registry: RequestHandlerRegistry
    let connection: ClientConnection
    let library: LibraryService
    let diagnostics: DiagnosticsPublisher
    let registrations: ClientRegistrations
    /// Measures the configured model on the library in the background (see `ModelQualifier`).
    let qualifier: ModelQualifier

    var phase = Phase.uninitialized
    var exitStatus: Int32?
    /// The negotiated encoding: every `Position` in and out counts code units of it.
    public internal(set) var positionEncoding = PositionEncoding.utf16
    var settings = ServerSettings()
    var documents = DocumentStore()
    var workspaceFolders: [String] = []
    var requests = PendingRequests()
    /// What `initialize` fixed, which a later settings change may narrow but never widen: the layers (what may be
    /// written), `saveTo`, the model's URL and its role (see `changeConfiguration`).
    var startLayers: [LibraryLayer]?
    var startSettings: ServerSettings?
    /// For a client that cannot register completion later: what the first load's trigger characters are kept under
    /// (`TriggerCharacterMemory`), the roots whose files it read, and when it was scheduled.
    var firstLoadMemory: (key: TriggerCharacterMemory.Key, roots: [String], began: Date)?
    /// The language of the first document opened in this session, kept with the trigger characters so that a later
    /// start reads that language's files at `initialize`, before the document is opened again.
    var firstOpenedLanguage: String?

    /// A server that will speak over `transport` once `run()` is called.
    public init(
        transport: any MessageTransport,
        configuration: ServerConfiguration,
        handlers: RequestHandlerRegistry = .standard
    ) {
        self.configuration = configuration
        self.registry = handlers
        var settings = ServerSettings()
        settings.model = configuration.defaultModel
        settings.modelRole = configuration.defaultModelRole
        self.settings = settings
        let connection = ClientConnection(transport: transport, logError: configuration.logError)
        self.connection = connection
        self.library = LibraryService(
            configuration: configuration,
            selection: LibrarySelection(settings: settings, configuration: configuration, workspaceFolders: [])
        ) { line, toClient in connection.log(line, toClient: toClient) }
        self.diagnostics = DiagnosticsPublisher(connection: connection)
        self.registrations = ClientRegistrations(connection: connection)
        self.qualifier = ModelQualifier(cache: QualificationCache(environment: configuration.environment), pacing: configuration.probePacing)
    }

    /// The library in service.
    public var snapshot: LibrarySnapshot {
        get async { await library.snapshot }
    }

    /// What the client can do, from `initialize`.
    var client: ClientCapabilities { registrations.client }

    /// Which library the settings and workspace folders choose.
    var selection: LibrarySelection {
        LibrarySelection(settings: settings, configuration: configuration, workspaceFolders: workspaceFolders, startLayers: startLayers)
    }

    /// Serves until `exit` or the end of input, and returns the exit status: 0 after `shutdown`, 1 otherwise.
    public func run() async -> Int32 {
        await library.setInstallHandler { [weak self] snapshot, problems in
            await self?.libraryInstalled(snapshot, problems: problems)
        }
        await library.setLanguageFilesHandler { [weak self] snapshot in
            await self?.languageFilesRead(snapshot)
        }
        let (queue, queueInput) = AsyncStream.makeStream(of: (item: Incoming, size: Int).self, bufferingPolicy: .unbounded)
        let budget = QueueBudget(maximumItems: Self.queuedMessageLimit, maximumBytes: Self.queuedByteLimit)
        let reader = Task { await self.read(into: queueInput, budget: budget) }
        for await (item, size) in queue {
            await process(item)
            budget.release(size)
            if exitStatus != nil { break }
        }
        reader.cancel()
        await library.close()
        await qualifier.cancelAll()
        requests.cancelAll()
        connection.close()
        return exitStatus ?? (phase == .shutDown ? 0 : 1)
    }

    /// The most messages read and not yet applied; the reader stops reading while the queue is this long.
    static let queuedMessageLimit = 256
    /// The most bytes of messages read and not yet applied (one larger message is still admitted into an empty queue).
    static let queuedByteLimit = 16 << 20

    /// Reads and frames bytes; cancellations are acted on at once, everything else goes to the queue in order,
    /// waiting for room in `budget` first, so a client that sends faster than the server applies is held back by
    /// the pipe instead of growing the server's memory.
    private nonisolated func read(into queue: AsyncStream<(item: Incoming, size: Int)>.Continuation, budget: QueueBudget) async {
        var framer = MessageFramer()
        for await chunk in connection.incoming {
            framer.append(chunk)
            while let event = framer.next() {
                switch event {
                case .malformedHeader(let reason):
                    configuration.logError("snippets-lsp: skipped a malformed message header: \(reason)")
                case .message(let body):
                    let received = RequestTimings.now()
                    switch JSONRPCMessage.decode(body) {
                    case .success(.notification("$/cancelRequest", let params)):
                        if let id = params?["id"].flatMap(RequestID.init) { await cancel(id) }
                    case .success(let message):
                        await budget.acquire(body.count)
                        if case .request(let id, _, _) = message { await noteRead(id) }
                        queue.yield((.message(message, received: received), body.count))
                    case .failure(let failure):
                        await budget.acquire(body.count)
                        queue.yield((.undecodable(failure), body.count))
                    }
                }
            }
        }
        if !framer.isAtMessageBoundary {
            configuration.logError("snippets-lsp: input ended in the middle of a message")
        }
        queue.finish()
    }

    /// Applies one message from the queue.
    private func process(_ item: Incoming) async {
        switch item {
        case .undecodable(let failure):
            connection.send(.response(id: failure.id, result: .failure(failure.error)))
        case .message(.response(let id, let result), _):
            if case .failure(let error) = result {
                configuration.logError("snippets-lsp: client answered request \(id?.description ?? "?") with error \(error.code): \(error.message)")
            }
        case .message(.notification(let method, let params), _):
            await handleNotification(method, params: params)
        case .message(.request(let id, let method, let params), let received):
            requests.arrived(id, method: method, received: received)
            await handleRequest(id: id, method: method, params: params)
        }
    }

    private func handleRequest(id: RequestID, method: String, params: JSONValue?) async {
        if requests.takeCancellation(of: id) {
            return reply(to: id, with: .failure(.requestCancelled))
        }
        switch (phase, method) {
        case (.uninitialized, "initialize"):
            return reply(to: id, with: await initialize(params))
        case (.uninitialized, _):
            return reply(to: id, with: .failure(.serverNotInitialized))
        case (.shutDown, _):
            return reply(to: id, with: .failure(.invalidRequest("the server is shut down; only 'exit' is accepted")))
        case (.running, "initialize"):
            return reply(to: id, with: .failure(.invalidRequest("'initialize' was already received")))
        case (.running, "shutdown"):
            phase = .shutDown
            await library.stopWatching()
            return reply(to: id, with: .success(.null))
        case (.running, _):
            break
        }
        guard let entry = registry.entry(for: method) else {
            return reply(to: id, with: .failure(.methodNotFound(method)))
        }
        // In the queue, so later messages (edits included) stay behind this request.
        let snapshot: LibrarySnapshot
        if entry.readsDocumentLanguageOnly, let uri = params?["textDocument"]?["uri"]?.stringValue,
            let language = documents[uri]?.languageID
        {
            snapshot = await library.completionSnapshot(forLanguage: language, within: configuration.firstLoadWait)
        } else if entry.needsLibrary {
            snapshot = await library.firstSnapshot(within: configuration.firstLoadWait)
        } else {
            snapshot = await library.snapshot
        }
        if entry.needsLibrary, requests.takeCancellation(of: id) {
            return reply(to: id, with: .failure(.requestCancelled))
        }
        let context = RequestContext(
            id: id, positionEncoding: positionEncoding, library: snapshot, documents: documents, settings: settings,
            client: client, workspaceFolders: workspaceFolders, configuration: configuration, qualifier: qualifier,
            effects: effects, startLayers: startLayers)
        let prepared = entry.prepare(params, context)
        let task = Task { () -> Result<ReplyPayload, ResponseError> in
            do {
                try Task.checkCancellation()
                // Every transform the request runs shares one regex budget (see `RegexBudget`).
                let result = try await RegexBudget.$request.withValue(RegexBudget(ticks: RegexBudget.perRequest)) {
                    try await prepared.run()
                }
                try Task.checkCancellation()
                return .success(result)
            } catch {
                return .failure(ResponseError.from(error))
            }
        }
        requests.started(id, as: task)
        if prepared.runsConcurrently {
            Task { let result = await task.value; self.finish(id, result) }
        } else {
            finish(id, await task.value)
        }
    }

    private func finish(_ id: RequestID, _ result: Result<ReplyPayload, ResponseError>) {
        requests.ended(id)
        let wasCancelled = requests.takeCancellation(of: id)
        switch (result, wasCancelled) {
        case (_, true): reply(to: id, with: .failure(.requestCancelled))
        case (.success(.encoded(let json)), false): reply(to: id, encoded: json)
        case (.success(.value(let value)), false): reply(to: id, with: .success(value))
        case (.failure(let error), false): reply(to: id, with: .failure(error))
        }
    }

    /// `$/cancelRequest` (see `PendingRequests.cancel(_:)`).
    private func cancel(_ id: RequestID) {
        requests.cancel(id)
    }

    /// Counts a request the reader has queued.
    private func noteRead(_ id: RequestID) {
        requests.read(id)
    }

    /// The one place a reply is written.
    private func reply(to id: RequestID, with result: Result<JSONValue, ResponseError>) {
        connection.send(.response(id: id, result: result))
        answered(id)
    }

    /// The other place a reply is written: a result whose JSON the handler already wrote (the completion list).
    private func reply(to id: RequestID, encoded json: [UInt8]) {
        // {"id":…,"jsonrpc":"2.0","result":…}: the keys in the order `serialized()` sorts them.
        var writer = JSONText.Writer()
        writer.raw("{\"id\":")
        _ = writer.write(id.json)
        writer.raw(",\"jsonrpc\":\"2.0\",\"result\":")
        writer.bytes.append(contentsOf: json)
        writer.raw("}")
        connection.send(MessageFramer.frame(writer.bytes))
        answered(id)
    }

    /// Called by both reply paths (`reply(to:with:)` and `reply(to:encoded:)`) right after the
    /// reply was written: bookkeeping for answered requests belongs here.
    private func answered(_ id: RequestID) {
        requests.answered(id)
    }

    /// The effects a handler may cause, bound to the parts that cause them; none reaches this actor but the
    /// timings, read for `snippets/stats`.
    private var effects: RequestEffects {
        let connection = connection
        let library = library
        return RequestEffects(
            notify: { method, params in connection.send(.notification(method: method, params: params)) },
            request: { method, params in connection.sendRequest(method, params) },
            log: { message, toClient in connection.log(message, toClient: toClient) },
            showMessage: { message, type in connection.showMessage(message, type: type) },
            reloadAndWait: { await library.reloadAndWait() },
            requestTimings: { [weak self] in await self?.requests.timings.report ?? RequestTimings().report })
    }
}
