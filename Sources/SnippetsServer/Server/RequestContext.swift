import SnippetsCore

/// Everything a handler may read, fixed when its request is taken off the queue, plus a way to talk to the client.
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
    let server: LanguageServer

    /// Throws `CancellationError` once the client has cancelled this request; call it between slow steps.
    public func checkCancellation() throws { try Task.checkCancellation() }

    /// Sends a notification to the client.
    public func notify<Params: Encodable & Sendable>(_ method: String, _ params: Params) async {
        server.connection.sendNotification(method, params)
    }

    /// Logs to stderr and, for what the user should see, `window/logMessage` (type 3 info).
    public func log(_ message: String, toClient: Bool = false) async {
        server.connection.log(message, toClient: toClient)
    }
}

