/// A JSON-RPC error reply: the one shape every failure of a request is turned into.
public struct ResponseError: Error, Hashable, Sendable {
    public var code: Int
    public var message: String
    public var data: JSONValue?

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// -32700: the bytes were not JSON.
    public static func parseError(_ message: String) -> ResponseError { .init(code: -32700, message: message) }
    /// -32600: JSON that is not a valid request here (also: any request after `shutdown`).
    public static func invalidRequest(_ message: String) -> ResponseError { .init(code: -32600, message: message) }
    /// -32601: no handler for the method.
    public static func methodNotFound(_ method: String) -> ResponseError {
        // The name is the client's text: a 10 MB name is not echoed back whole.
        .init(code: -32601, message: "method not found: \(method.count > 200 ? method.prefix(200) + "…" : method)")
    }
    /// -32602: params that do not fit the method.
    public static func invalidParams(_ message: String) -> ResponseError { .init(code: -32602, message: message) }
    /// -32603: a failure inside the server.
    public static func internalError(_ message: String) -> ResponseError { .init(code: -32603, message: message) }
    /// -32002: a request before `initialize`.
    public static let serverNotInitialized = ResponseError(code: -32002, message: "server not initialized")
    /// -32800: the client cancelled the request.
    public static let requestCancelled = ResponseError(code: -32800, message: "request cancelled")
    /// -32803 (LSP `RequestFailed`): a valid request the server declines to carry out now (a refusal, or the
    /// library not loaded yet); the message says why and is shown to the user.
    public static func requestFailed(_ message: String) -> ResponseError { .init(code: -32803, message: message) }

    /// The wire form: `{"code": ..., "message": ..., "data"?: ...}`.
    public var json: JSONValue {
        var object: [String: JSONValue] = ["code": .int(code), "message": .string(message)]
        if let data { object["data"] = data }
        return .object(object)
    }

    /// Turns anything a handler threw into the error the client sees. The one place this mapping lives.
    public static func from(_ error: any Error) -> ResponseError {
        if let error = error as? ResponseError { return error }
        if error is CancellationError { return .requestCancelled }
        if let error = error as? DecodingError { return .invalidParams("invalid params: \(describe(error))") }
        return .internalError(String(describing: error))
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            "missing '\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            "'\(context.codingPath.map(\.stringValue).joined(separator: "."))': \(context.debugDescription)"
        @unknown default:
            String(describing: error)
        }
    }
}
