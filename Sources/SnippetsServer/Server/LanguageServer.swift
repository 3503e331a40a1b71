import Foundation
import SnippetsCore

/// The language server: reads messages from a `MessageTransport`, applies them in order, and answers every
/// request exactly once.
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

    let transport: any MessageTransport
    let configuration: ServerConfiguration
    let registry: RequestHandlerRegistry

    var phase = Phase.uninitialized
    var exitStatus: Int32?
    /// The negotiated encoding: every `Position` in and out counts code units of it.
    public internal(set) var positionEncoding = PositionEncoding.utf16
    var client = ClientCapabilities(raw: nil)
    var settings = ServerSettings()
    var documents = DocumentStore()
    var workspaceFolders: [String] = []
    /// The library in service.
    public internal(set) var snapshot = LibrarySnapshot.empty

    private var running: [RequestID: Task<Result<ReplyPayload, ResponseError>, Never>] = [:]
    private var cancelled: Set<RequestID> = []
    /// Requests read and not yet answered, by id (a count, as a client may repeat an id). Only these can be cancelled:
    /// a cancellation for an id already answered or never sent must not mark a later request with that id.
    private var unanswered: [RequestID: Int] = [:]
    private var nextOutgoingID = 1
    /// Server-side time per request, reported by `snippets/stats`.
    var requestTimings = RequestTimings()
    /// Method and read time of each request not answered yet, for `requestTimings`.
    private var arrivals: [RequestID: (method: String, received: UInt64)] = [:]

    // Reloading (see LanguageServer+Library.swift).
    var lastGood = LastGoodFiles()
    var reloadTask: Task<Void, Never>?
    var reloadRequested = false
    var watcherTask: Task<Void, Never>?
    var publishedDiagnostics: Set<String> = []
    /// Whether the client sent `initialized` (requests to it, and diagnostics, wait for it).
    var clientIsReady = false
    /// The trigger characters the client was last told about (statically or by registration), and the id of the
    /// dynamic registration carrying them.
    var advertisedTriggerCharacters: [String]?
    var completionRegistrationID: String?
    /// Library path problems already shown with `window/showMessage` (each is shown once).
    var shownPathProblems: Set<String> = []
    /// Path URIs with a published path problem (cleared once the path is fixed).
    var publishedPathProblems: Set<String> = []
    var libraryDiagnostics: [String: [LibraryDiagnostic]] = [:]
    /// The paths of the snippet files with errors in the snippet in service, in library order.
    var brokenFilePaths: [String] = []
    /// The broken files the user was last told about (`announceBrokenFiles`): a reload finding the same ones says
    /// nothing again.
    var announcedBrokenFiles: Set<String> = []
    /// Measures the configured model on the library in the background (see `ModelQualifier`).
    let qualifier: ModelQualifier

    /// A server that will speak over `transport` once `run()` is called.
    public init(
        transport: any MessageTransport,
        configuration: ServerConfiguration,
        handlers: RequestHandlerRegistry = .standard
    ) {
        self.transport = transport
        self.configuration = configuration
        self.registry = handlers
        self.settings.model = configuration.defaultModel
        self.settings.modelRole = configuration.defaultModelRole
        self.qualifier = ModelQualifier(cache: QualificationCache(environment: configuration.environment))
    }

    /// Serves until `exit` or the end of input, and returns the exit status: 0 after `shutdown`, 1 otherwise.
    public func run() async -> Int32 {
        let (queue, queueInput) = AsyncStream.makeStream(of: (item: Incoming, size: Int).self, bufferingPolicy: .unbounded)
        let budget = QueueBudget(maximumItems: Self.queuedMessageLimit, maximumBytes: Self.queuedByteLimit)
        let reader = Task { await self.read(into: queueInput, budget: budget) }
        for await (item, size) in queue {
            await process(item)
            budget.release(size)
            if exitStatus != nil { break }
        }
        reader.cancel()
        watcherTask?.cancel()
        reloadTask?.cancel()
        await qualifier.cancelAll()
        for task in running.values { task.cancel() }
        transport.close()
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
        for await chunk in transport.incoming {
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
                        if case .request(let id, _, _) = message { await noteUnanswered(id) }
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
            send(.response(id: failure.id, result: .failure(failure.error)))
        case .message(.response(let id, let result), _):
            if case .failure(let error) = result {
                configuration.logError("snippets-lsp: client answered request \(id?.description ?? "?") with error \(error.code): \(error.message)")
            }
        case .message(.notification(let method, let params), _):
            await handleNotification(method, params: params)
        case .message(.request(let id, let method, let params), let received):
            arrivals[id] = (method, received)
            await handleRequest(id: id, method: method, params: params)
        }
    }

    private func handleRequest(id: RequestID, method: String, params: JSONValue?) async {
        if cancelled.remove(id) != nil {
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
            watcherTask?.cancel()
            return reply(to: id, with: .success(.null))
        case (.running, _):
            break
        }
        guard let entry = registry.entry(for: method) else {
            return reply(to: id, with: .failure(.methodNotFound(method)))
        }
        if entry.needsLibrary {
            // In the queue, so later messages (edits included) stay behind this request.
            await waitForFirstLoad()
            if cancelled.remove(id) != nil { return reply(to: id, with: .failure(.requestCancelled)) }
        }
        let context = RequestContext(
            id: id, positionEncoding: positionEncoding, library: snapshot, documents: documents, settings: settings,
            client: client, workspaceFolders: workspaceFolders, configuration: configuration, server: self)
        let prepared = entry.prepare(params, context)
        let task = Task { () -> Result<ReplyPayload, ResponseError> in
            do {
                try Task.checkCancellation()
                let result = try await prepared.run()
                try Task.checkCancellation()
                return .success(result)
            } catch {
                return .failure(ResponseError.from(error))
            }
        }
        running[id] = task
        if prepared.runsConcurrently {
            Task { let result = await task.value; self.finish(id, result) }
        } else {
            finish(id, await task.value)
        }
    }

    private func finish(_ id: RequestID, _ result: Result<ReplyPayload, ResponseError>) {
        running[id] = nil
        let wasCancelled = cancelled.remove(id) != nil
        switch (result, wasCancelled) {
        case (_, true): reply(to: id, with: .failure(.requestCancelled))
        case (.success(.encoded(let json)), false): reply(to: id, encoded: json)
        case (.success(.value(let value)), false): reply(to: id, with: .success(value))
        case (.failure(let error), false): reply(to: id, with: .failure(error))
        }
    }

    /// `$/cancelRequest`: stops a running request (it is answered with -32800 when it ends) or marks a queued one
    /// so it is answered with -32800 without running.
    private func cancel(_ id: RequestID) {
        guard unanswered[id] != nil else { return }
        cancelled.insert(id)
        running[id]?.cancel()
    }

    /// Counts a request the reader has queued.
    private func noteUnanswered(_ id: RequestID) {
        unanswered[id, default: 0] += 1
    }

    /// The one place a reply is written.
    private func reply(to id: RequestID, with result: Result<JSONValue, ResponseError>) {
        send(.response(id: id, result: result))
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
        transport.send(MessageFramer.frame(writer.bytes))
        answered(id)
    }

    /// Called by both reply paths (`reply(to:with:)` and `reply(to:encoded:)`) right after the
    /// reply was written: bookkeeping for answered requests belongs here.
    private func answered(_ id: RequestID) {
        if let count = unanswered[id] { unanswered[id] = count > 1 ? count - 1 : nil }
        if let request = arrivals.removeValue(forKey: id) {
            requestTimings.record(request.method, receivedAt: request.received)
        }
    }

    func send(_ message: JSONRPCMessage) {
        transport.send(MessageFramer.frame(message.json.serialized()))
    }

    /// Sends a notification to the client.
    func sendNotification<Params: Encodable & Sendable>(_ method: String, _ params: Params) {
        do {
            send(.notification(method: method, params: try JSONValue(encoding: params)))
        } catch {
            configuration.logError("snippets-lsp: could not encode \(method): \(error)")
        }
    }

    /// Sends a request to the client; its reply is only logged if it is an error.
    func sendRequest<Params: Encodable & Sendable>(_ method: String, _ params: Params) {
        let id = RequestID.string("snippets-\(nextOutgoingID)")
        nextOutgoingID += 1
        do {
            send(.request(id: id, method: method, params: try JSONValue(encoding: params)))
        } catch {
            configuration.logError("snippets-lsp: could not encode \(method): \(error)")
        }
    }

    /// Logs to stderr, and with `toClient` also as `window/logMessage`.
    func log(_ message: String, toClient: Bool = false, type: MessageType = .info) {
        configuration.logError("snippets-lsp: " + message)
        if toClient { sendNotification("window/logMessage", MessageParams(type: type, message: message)) }
    }

    /// Shows `message` to the user (`window/showMessage`).
    func showMessage(_ message: String, type: MessageType) {
        configuration.logError("snippets-lsp: " + message)
        sendNotification("window/showMessage", MessageParams(type: type, message: message))
    }
}
