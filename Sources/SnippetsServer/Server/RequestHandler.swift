import SnippetsCore

/// A handler for one request method. Write one per file, then add one line to `RequestHandlerRegistry.standard`.
public protocol RequestHandler: Sendable {
    /// What the params decode to (`IgnoredParams` for none).
    associatedtype Params: Decodable & Sendable
    /// What the reply's `result` encodes from (`JSONValue.null` for `null`).
    associatedtype Result: Encodable & Sendable

    /// The method name, e.g. `textDocument/completion`.
    static var method: String { get }
    /// Whether the request runs beside the in-order queue instead of in it. Set it for slow work (asking a
    /// model) so that completions behind it don't wait; such a handler sees the state as of its arrival.
    static var runsConcurrently: Bool { get }
    /// Whether this request runs beside the in-order queue; `runsConcurrently` unless the handler decides per
    /// request (`workspace/executeCommand` runs `snippets.ask` beside the queue and saving in it).
    static func runsConcurrently(_ params: Params, context: RequestContext) -> Bool
    /// What the handler adds to the `capabilities` of the `initialize` reply (e.g. `executeCommandProvider`).
    static var serverCapabilities: ServerCapabilities { get }
    /// Whether the request reads the library: such a request waits (a bounded time) for the first load, so no
    /// reply speaks about a library that was not read yet.
    static var needsLibrary: Bool { get }
    /// Whether the request reads only the snippets of its document's (`textDocument.uri`'s) language: before the
    /// first load is in service, it may be answered from the files that language needs
    /// (`LibraryService.completionSnapshot(forLanguage:within:)`).
    static var readsDocumentLanguageOnly: Bool { get }

    /// Answers the request. Throw `ResponseError` for a specific error code; anything else becomes -32603, and
    /// `CancellationError` (from `context.checkCancellation()`) becomes -32800.
    static func handle(_ params: Params, context: RequestContext) async throws -> Result
}

extension RequestHandler {
    /// In order, by default.
    public static var runsConcurrently: Bool { false }
    /// The same for every request, by default.
    public static func runsConcurrently(_ params: Params, context: RequestContext) -> Bool { runsConcurrently }
    /// No extra capabilities, by default.
    public static var serverCapabilities: ServerCapabilities { ServerCapabilities() }
    /// Reads the library, by default.
    public static var needsLibrary: Bool { true }
    /// Reads the whole library, by default.
    public static var readsDocumentLanguageOnly: Bool { false }
}

/// A handler's result: a value, or JSON text already written (the completion list writes itself, as building and
/// sorting a `JSONValue` tree per item was a third of a completion's time).
enum ReplyPayload: Sendable {
    case value(JSONValue)
    case encoded([UInt8])
}

/// A result that writes its own JSON text, exactly as `JSONValue(encoding:)` then `serialized()` would.
protocol JSONBytesWritable {
    /// Appends the value's JSON (keys sorted by bytes, as `serialized()`).
    func writeJSON(into writer: inout JSONText.Writer)
}

/// The request handlers the server knows, by method.
///
/// To add a request: write `enum MyHandler: RequestHandler` (with `method`, `Params`, `Result`, `handle`) in its
/// own file, and add `registry.register(MyHandler.self)` to `standard` in `RequestHandlers.swift`. Lifecycle
/// methods (`initialize`, `shutdown`) and notifications are handled by `LanguageServer` itself.
public struct RequestHandlerRegistry: Sendable {
    /// A type-erased handler.
    struct Entry: Sendable {
        let needsLibrary: Bool
        let readsDocumentLanguageOnly: Bool
        let capabilities: ServerCapabilities
        /// Decodes the params (in order, where the request is read) and says how the request runs.
        let prepare: @Sendable (JSONValue?, RequestContext) -> Prepared
    }

    /// A request ready to run: whether beside the queue, and the work itself.
    struct Prepared: Sendable {
        let runsConcurrently: Bool
        let run: @Sendable () async throws -> ReplyPayload
    }

    private var entries: [String: Entry] = [:]

    /// An empty registry.
    public init() {}

    /// Adds (or replaces) the handler for `handler.method`.
    public mutating func register<Handler: RequestHandler>(_ handler: Handler.Type) {
        entries[Handler.method] = Entry(
            needsLibrary: Handler.needsLibrary,
            readsDocumentLanguageOnly: Handler.readsDocumentLanguageOnly,
            capabilities: Handler.serverCapabilities
        ) { params, context in
            let decoded: Handler.Params
            do {
                decoded = try (params ?? .null).decode(Handler.Params.self)
            } catch {
                let failure = ResponseError.from(error)
                return Prepared(runsConcurrently: false) { throw failure }
            }
            return Prepared(runsConcurrently: Handler.runsConcurrently(decoded, context: context)) {
                let result = try await Handler.handle(decoded, context: context)
                if let writable = result as? any JSONBytesWritable {
                    var writer = JSONText.Writer()
                    writable.writeJSON(into: &writer)
                    return .encoded(writer.bytes)
                }
                return .value(try JSONValue(encoding: result))
            }
        }
    }

    /// The methods with a handler.
    public var methods: [String] { entries.keys.sorted() }

    func entry(for method: String) -> Entry? { entries[method] }

    /// Capabilities contributed by the handlers, merged (`experimental` member by member).
    var contributedCapabilities: ServerCapabilities {
        entries.values.reduce(ServerCapabilities()) { result, entry in result.merging(entry.capabilities) }
    }
}
