import Foundation

/// The server's side of the conversation with the client: every message the server itself starts (notifications,
/// requests to the client, log lines) is written here, from whichever part of the server starts it. Replies are
/// written by `LanguageServer` alone (`reply(to:with:)`), through `send(_:)`.
///
/// **Invariant:** each message is written whole (the transport writes one call's bytes in call order), and each
/// request to the client gets an id of its own (`snippets-1`, `snippets-2`, …) whichever part sends it.
final class ClientConnection: @unchecked Sendable {
    // @unchecked: `transport` and `logError` are Sendable and immutable; `nextOutgoingID`, the one mutable property,
    // is read and written only with `lock` held.
    private let transport: any MessageTransport
    /// Writes one line to stderr.
    let logError: @Sendable (String) -> Void
    private let lock = NSLock()
    private var nextOutgoingID = 1

    init(transport: any MessageTransport, logError: @escaping @Sendable (String) -> Void) {
        self.transport = transport
        self.logError = logError
    }

    /// The client's bytes, as they arrive.
    var incoming: AsyncStream<[UInt8]> { transport.incoming }

    /// Writes framed bytes (a reply the server wrote itself).
    func send(_ framed: [UInt8]) {
        transport.send(framed)
    }

    /// Writes one message.
    func send(_ message: JSONRPCMessage) {
        transport.send(MessageFramer.frame(message.json.serialized()))
    }

    /// Closes the output side; nothing is written after this.
    func close() {
        transport.close()
    }

    /// Sends a notification to the client.
    func sendNotification<Params: Encodable & Sendable>(_ method: String, _ params: Params) {
        do {
            send(.notification(method: method, params: try JSONValue(encoding: params)))
        } catch {
            logError("snippets-lsp: could not encode \(method): \(error)")
        }
    }

    /// Sends a request to the client; its reply is only logged if it is an error.
    func sendRequest<Params: Encodable & Sendable>(_ method: String, _ params: Params) {
        let encoded: JSONValue
        do {
            encoded = try JSONValue(encoding: params)
        } catch {
            return logError("snippets-lsp: could not encode \(method): \(error)")
        }
        // The id is taken and the request written under one lock, so ids go out in order.
        lock.withLock {
            send(.request(id: .string("snippets-\(nextOutgoingID)"), method: method, params: encoded))
            nextOutgoingID += 1
        }
    }

    /// Logs to stderr, and with `toClient` also as `window/logMessage`.
    func log(_ message: String, toClient: Bool = false, type: MessageType = .info) {
        logError("snippets-lsp: " + message)
        if toClient { sendNotification("window/logMessage", MessageParams(type: type, message: message)) }
    }

    /// Shows `message` to the user (`window/showMessage`), and logs it to stderr.
    func showMessage(_ message: String, type: MessageType) {
        logError("snippets-lsp: " + message)
        sendNotification("window/showMessage", MessageParams(type: type, message: message))
    }
}
