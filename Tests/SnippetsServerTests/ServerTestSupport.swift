import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// How long a test waits for an event it expects (a reply, a notification, a load): an upper bound, never a
/// measurement. Generous, because on a machine whose cores are busy with other work a reply can take seconds, and
/// only an event that never comes should fail a test; a test that expects nothing passes its own short wait.
let patience: Duration = .seconds(120)

/// An in-memory snippet library whose files tests can edit between loads.
final class TestLibrary: Sendable {
    private let lock = NSLock()
    // Guarded by `lock`; only touched inside `withLock`.
    nonisolated(unsafe) private var files: [String: SnippetFile] = [:]
    nonisolated(unsafe) private var version = 0
    /// When each file was last put, as a disk's modification time (files given at creation: long ago).
    nonisolated(unsafe) private var modified: [String: Date] = [:]
    nonisolated(unsafe) private var delay: Duration = .zero
    nonisolated(unsafe) private var loadedPaths: [[String]] = []

    init(_ files: [SnippetFile] = []) {
        for file in files { self.files[file.uri] = file }
    }

    /// Replaces (or adds) a file and bumps the stamps the periodic check sees, modified now as on a disk.
    func put(_ file: SnippetFile) {
        lock.withLock {
            files[file.uri] = file
            modified[file.uri] = Date()
            version += 1
        }
    }

    /// Makes every later load take `delay` (a slow disk).
    func setLoadDelay(_ delay: Duration) { lock.withLock { self.delay = delay } }

    /// The paths of every load so far.
    var pathsLoaded: [[String]] { lock.withLock { loadedPaths } }

    func load(_ paths: [String]) -> SnippetLibrary {
        let delay = lock.withLock {
            loadedPaths.append(paths)
            return self.delay
        }
        if delay > .zero { Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18) }
        return lock.withLock {
            SnippetLibrary(files: files.values.sorted { $0.uri < $1.uri }, searchedPaths: paths)
        }
    }

    func stamps(_ paths: [String]) -> [String: FileStamp] {
        lock.withLock {
            Dictionary(uniqueKeysWithValues: files.keys.map { ($0, FileStamp(size: version, modified: modified[$0] ?? .distantPast)) })
        }
    }
}

/// A snippet as a library file would give it.
func makeSnippet(
    _ title: String, triggers: [String], body: String, scopes: [String] = [], description: String? = nil,
    file: String = "file:///lib/test.code-snippets", line: Int = 0
) -> Snippet {
    Snippet(
        id: SnippetID(fileURI: file, key: title), title: title, triggers: triggers, description: description,
        body: body, scopes: scopes,
        location: SnippetsCore.SourceLocation(
            uri: file,
            range: SourceRange(start: SourcePosition(line: line, asciiColumn: 2), end: SourcePosition(line: line + 3, asciiColumn: 3))),
        format: .vscode)
}

/// A snippet file.
func makeFile(_ snippets: [Snippet], uri: String = "file:///lib/test.code-snippets", diagnostics: [LibraryDiagnostic] = []) -> SnippetFile {
    SnippetFile(uri: uri, path: String(uri.dropFirst("file://".count)), format: .vscode, snippets: snippets, diagnostics: diagnostics)
}

/// Messages from the server, kept until a test takes them.
actor Inbox {
    private struct Waiter {
        let id: Int
        let predicate: @Sendable (JSONRPCMessage) -> Bool
        let continuation: CheckedContinuation<JSONRPCMessage?, Never>
    }

    private var messages: [JSONRPCMessage] = []
    private var waiters: [Waiter] = []
    private var nextWaiter = 0

    func add(_ message: JSONRPCMessage) {
        if let index = waiters.firstIndex(where: { $0.predicate(message) }) {
            waiters.remove(at: index).continuation.resume(returning: message)
        } else {
            messages.append(message)
        }
    }

    func next(timeout: Duration, matching predicate: @escaping @Sendable (JSONRPCMessage) -> Bool) async -> JSONRPCMessage? {
        if let index = messages.firstIndex(where: predicate) { return messages.remove(at: index) }
        nextWaiter += 1
        let id = nextWaiter
        return await withCheckedContinuation { continuation in
            waiters.append(Waiter(id: id, predicate: predicate, continuation: continuation))
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(id)
            }
        }
    }

    private func expire(_ id: Int) {
        if let index = waiters.firstIndex(where: { $0.id == id }) {
            waiters.remove(at: index).continuation.resume(returning: nil)
        }
    }

    /// Everything not yet taken.
    func unclaimed() -> [JSONRPCMessage] { messages }
}

/// The real server, run in-process over an in-memory pipe, with a client that speaks to it.
final class TestClient: Sendable {
    let server: LanguageServer
    let library: TestLibrary
    let inbox = Inbox()
    private let transport: InMemoryTransport
    private let serverRun: Task<Int32, Never>
    private let nextID = Counter()
    let stderr = LogLines()

    /// `diskLibrary`: load these real paths from disk instead of `library` (tests that write files).
    init(
        library: TestLibrary = TestLibrary(), polling: Bool = false, handlers: RequestHandlerRegistry = .standard,
        now: Date = Date(timeIntervalSince1970: 1_700_000_000), diskLibrary: [String]? = nil, diskLayers: [LibraryLayer]? = nil,
        environment: [String: String] = [:], firstLoadWait: Duration? = nil,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) {
        let (client, serverEnd) = InMemoryTransport.pair()
        transport = client
        self.library = library
        let stderr = self.stderr
        let libraryStamps: @Sendable ([String]) -> [String: FileStamp] = { paths in library.stamps(paths) }
        let fromDisk = diskLibrary != nil || diskLayers != nil
        // From disk, polling reads the real files' stamps, as `serve` does.
        let stamps = polling ? (fromDisk ? DiskStamps.stamps(under:) : libraryStamps) : nil
        // From disk, loading and annotating are split as `serve` splits them (`ServeCommand.configuration`).
        let load: @Sendable ([LibraryLayer], [String]) -> SnippetLibrary = { layers, roots in
            fromDisk
                ? LibraryLoader(fileSystem: DiskFileSystem()).load(layers: layers, workspaceRoots: roots)
                : library.load(layers.map(\.path))
        }
        var configuration = ServerConfiguration(
            defaultLibraryLayers: diskLayers ?? (diskLibrary ?? ["/lib"]).map { LibraryLayer(path: $0) },
            loadLibrary: load,
            libraryStamps: stamps,
            pollInterval: .milliseconds(50),
            logError: { line in stderr.append(line) },
            now: { now },
            environment: environment.merging(["XDG_STATE_HOME": testStateDirectory, "XDG_CACHE_HOME": testCacheDirectory]) { given, _ in given })
        if fromDisk { configuration.annotateLibrary = { LayerLoading.annotating($0) } }
        if let firstLoadWait { configuration.firstLoadWait = firstLoadWait }
        configure(&configuration)
        let server = LanguageServer(transport: serverEnd, configuration: configuration, handlers: handlers)
        self.server = server
        serverRun = Task { await server.run() }
        let inbox = inbox
        Task {
            var framer = MessageFramer()
            for await chunk in client.incoming {
                framer.append(chunk)
                while let event = framer.next() {
                    if case .message(let body) = event, case .success(let message) = JSONRPCMessage.decode(body) {
                        await inbox.add(message)
                    }
                }
            }
        }
    }

    /// Sends raw bytes (already framed or deliberately broken).
    func sendRaw(_ bytes: [UInt8]) { transport.send(bytes) }

    /// Sends one framed JSON body.
    func send(_ json: JSONValue) { sendRaw(MessageFramer.frame(json.serialized())) }

    /// Sends a request and returns its id without waiting.
    @discardableResult
    func sendRequest(_ method: String, _ params: JSONValue? = nil, id: Int? = nil) -> Int {
        let id = id ?? nextID.next()
        send(JSONRPCMessage.request(id: .number(id), method: method, params: params).json)
        return id
    }

    /// The reply to request `id`.
    func response(to id: Int, timeout: Duration = patience) async -> Result<JSONValue, ResponseError>? {
        let message = await inbox.next(timeout: timeout) { message in
            if case .response(.number(id), _) = message { return true }
            return false
        }
        if case .response(_, let result) = message { return result }
        return nil
    }

    /// Sends a request and waits for its reply.
    func request(_ method: String, _ params: JSONValue? = nil) async -> Result<JSONValue, ResponseError>? {
        await response(to: sendRequest(method, params))
    }

    /// The result of a request that must succeed.
    func result(
        _ method: String, _ params: JSONValue? = nil, timeout: Duration = patience,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        let reply = await response(to: sendRequest(method, params), timeout: timeout)
        switch reply {
        case .success(let value): return value
        case .failure(let error):
            Issue.record("\(method) failed: \(error.code) \(error.message)", sourceLocation: sourceLocation)
            throw error
        case nil:
            Issue.record("\(method) got no reply", sourceLocation: sourceLocation)
            throw ResponseError.internalError("no reply")
        }
    }

    func notify(_ method: String, _ params: JSONValue? = nil) {
        send(JSONRPCMessage.notification(method: method, params: params).json)
    }

    /// The next notification (or server-to-client request) with `method`.
    func notification(_ method: String, timeout: Duration = patience) async -> JSONValue? {
        let message = await inbox.next(timeout: timeout) { message in
            switch message {
            case .notification(method, _), .request(_, method, _): true
            default: false
            }
        }
        switch message {
        case .notification(_, let params), .request(_, _, let params): return params ?? .null
        default: return nil
        }
    }

    /// Initializes with the given client description, sends `initialized`, and waits for the first library load.
    @discardableResult
    func initialize(
        capabilities: JSONValue = [:], clientName: String? = "test-client", options: JSONValue? = nil,
        workspaceFolders: [String] = []
    ) async throws -> JSONValue {
        var params: [String: JSONValue] = ["processId": .null, "capabilities": capabilities]
        if let clientName { params["clientInfo"] = ["name": .string(clientName)] }
        if let options { params["initializationOptions"] = options }
        if !workspaceFolders.isEmpty {
            params["workspaceFolders"] = .array(workspaceFolders.map { folder -> JSONValue in
                ["uri": .string("file://" + folder), "name": "w"]
            })
        }
        let result = try await self.result("initialize", .object(params))
        notify("initialized", [:])
        try await nextLoad()
        return result
    }

    /// Waits for the server's "loaded N snippets" log message, which follows every library load.
    @discardableResult
    func nextLoad(
        timeout: Duration = patience, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async throws -> String {
        let message = await inbox.next(timeout: timeout) { message in
            if case .notification("window/logMessage", let params) = message {
                return params?["message"]?.stringValue?.hasPrefix("loaded ") == true
            }
            return false
        }
        guard case .notification(_, let params) = message, let text = params?["message"]?.stringValue else {
            Issue.record("the library was not (re)loaded", sourceLocation: sourceLocation)
            throw ResponseError.internalError("no load")
        }
        return text
    }

    func open(_ uri: String, language: String, text: String) {
        let document: JSONValue = ["uri": .string(uri), "languageId": .string(language), "version": 1, "text": .string(text)]
        notify("textDocument/didOpen", ["textDocument": document])
    }

    /// The completion list at a position.
    func complete(_ uri: String, line: Int, character: Int) async throws -> CompletionList {
        let position: JSONValue = ["line": .int(line), "character": .int(character)]
        let params: JSONValue = ["textDocument": ["uri": .string(uri)], "position": position]
        return try await result("textDocument/completion", params).decode(CompletionList.self)
    }

    /// Shutdown + exit, returning the exit status.
    func shutdownAndExit() async throws -> Int32 {
        _ = try await result("shutdown")
        notify("exit")
        return await exitStatus()
    }

    /// The server's exit status once it stops (fails the test when it has not stopped within `patience`).
    func exitStatus() async -> Int32 {
        let run = serverRun
        return await withTaskGroup(of: Int32?.self) { group in
            group.addTask { await run.value }
            group.addTask {
                try? await Task.sleep(for: patience)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            if first == nil { Issue.record("the server did not stop") }
            return first ?? -1
        }
    }

    /// Ends the input, as when the editor closes the pipe.
    func closeInput() { transport.close() }
}

/// A thread-safe counter for request ids.
final class Counter: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var value = 0
    func next() -> Int { lock.withLock { value += 1; return value } }
    /// How many times `next()` was called.
    var count: Int { lock.withLock { value } }
}

/// Lines the server wrote to its stderr.
final class LogLines: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

/// The error code of a reply, or nil for a success or no reply.
func errorCode(_ reply: Result<JSONValue, ResponseError>?) -> Int? {
    if case .failure(let error) = reply { return error.code }
    return nil
}
