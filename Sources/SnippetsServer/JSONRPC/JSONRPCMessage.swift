/// A request identifier: JSON-RPC allows numbers and strings.
public enum RequestID: Hashable, Sendable, CustomStringConvertible {
    case number(Int)
    case string(String)

    /// The identifier in `value`, if it is a valid one. A number is one only when it is exactly an integer that fits
    /// (`JSONText` reads those as `.int`): any other number would come back changed in the reply, so it is refused.
    public init?(_ value: JSONValue) {
        if case .int(let number) = value {
            self = .number(number)
        } else if let text = value.stringValue {
            self = .string(text)
        } else {
            return nil
        }
    }

    /// The wire form.
    public var json: JSONValue {
        switch self {
        case .number(let number): .int(number)
        case .string(let text): .string(text)
        }
    }

    public var description: String {
        switch self {
        case .number(let number): String(number)
        case .string(let text): "\"\(text)\""
        }
    }
}

/// One JSON-RPC 2.0 message, in either direction.
public enum JSONRPCMessage: Hashable, Sendable {
    case request(id: RequestID, method: String, params: JSONValue?)
    case notification(method: String, params: JSONValue?)
    case response(id: RequestID?, result: Result<JSONValue, ResponseError>)

    /// Reads a message from a frame body. Bytes that are not JSON give a parse error; JSON that is not a message
    /// gives an invalid-request error carrying the id when one could be read, so it can still be answered.
    public static func decode(_ body: [UInt8]) -> Result<JSONRPCMessage, DecodeFailure> {
        let value: JSONValue
        do {
            value = try JSONValue.parse(body)
        } catch {
            return .failure(DecodeFailure(id: nil, error: .parseError("message is not valid JSON")))
        }
        guard case .object(let members) = value else {
            return .failure(DecodeFailure(id: nil, error: .invalidRequest("message is not a JSON object")))
        }
        let id = members["id"].flatMap(RequestID.init)
        if let method = members["method"] {
            guard let method = method.stringValue else {
                return .failure(DecodeFailure(id: id, error: .invalidRequest("'method' is not a string")))
            }
            let params = members["params"]
            // A message with a method and any `id` member is a request; `"id": null` is not a notification (LSP ids
            // are numbers or strings), so it is refused with -32600 rather than silently never answered.
            if members["id"] != nil {
                guard let id else {
                    return .failure(DecodeFailure(id: nil, error: .invalidRequest("'id' is not a number or string")))
                }
                return .success(.request(id: id, method: method, params: params))
            }
            return .success(.notification(method: method, params: params))
        }
        if let error = members["error"] {
            let code = error["code"]?.intValue ?? -32603
            let message = error["message"]?.stringValue ?? ""
            return .success(.response(id: id, result: .failure(ResponseError(code: code, message: message, data: error["data"]))))
        }
        if let result = members["result"] {
            return .success(.response(id: id, result: .success(result)))
        }
        return .failure(DecodeFailure(id: id, error: .invalidRequest("message has neither 'method' nor 'result'/'error'")))
    }

    /// Why a frame body is not a usable message, and which request (if any) to answer.
    public struct DecodeFailure: Error, Hashable, Sendable {
        public var id: RequestID?
        public var error: ResponseError
    }

    /// The wire form.
    public var json: JSONValue {
        switch self {
        case .request(let id, let method, let params):
            var object: [String: JSONValue] = ["jsonrpc": "2.0", "id": id.json, "method": .string(method)]
            if let params { object["params"] = params }
            return .object(object)
        case .notification(let method, let params):
            var object: [String: JSONValue] = ["jsonrpc": "2.0", "method": .string(method)]
            if let params { object["params"] = params }
            return .object(object)
        case .response(let id, let result):
            var object: [String: JSONValue] = ["jsonrpc": "2.0", "id": id?.json ?? .null]
            switch result {
            case .success(let value): object["result"] = value
            case .failure(let error): object["error"] = error.json
            }
            return .object(object)
        }
    }
}
