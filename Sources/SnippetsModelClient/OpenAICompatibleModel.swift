import Foundation
import SnippetsCore

/// The core's `AskModel` over an OpenAI-compatible `/v1/chat/completions` endpoint (llama-server, Ollama, vLLM,
/// LM Studio), with replies constrained by a JSON schema in `response_format` and re-checked here anyway: servers
/// that ignore the schema get the same scrutiny as those that honour it.
///
/// **Invariant:** the API key goes only into the `Authorization` header of requests to `configuration.baseURL`
/// (redirects are refused) and never into an error, a log line or a result: every detail is `redacted` first.
///
/// **Invariant:** no word the model or its server wrote reaches a fault's detail (so a reason the user reads): an
/// error message, a refusal or a context complaint is reduced to a `ForeignWords` code and the HTTP status, which are
/// logged; the detail is a sentence of our own.
public struct OpenAICompatibleModel: AskModel {
    public let configuration: ModelConfiguration
    /// The key read from the environment at creation; private so nothing can print it.
    private let apiKey: String?
    private let gateKey: String
    /// The proxy variable that would carry the key to another host over plain http; then nothing is sent.
    private let keyCarryingProxy: String?
    /// Where a reply whose words were dropped is noted (its `ForeignWords` code and HTTP status, never the words).
    private let log: @Sendable (String) -> Void

    /// A client for `configuration`, reading the key from `environment[configuration.apiKeyEnvironmentVariable]`;
    /// `log` takes one line (by default to stderr).
    public init(
        configuration: ModelConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment,
        log: @escaping @Sendable (String) -> Void = OpenAICompatibleModel.logToStandardError
    ) {
        self.configuration = configuration
        self.log = log
        let key = configuration.apiKeyEnvironmentVariable.flatMap { environment[$0] }?.trimmingCharacters(in: .whitespacesAndNewlines)
        self.apiKey = (key?.isEmpty ?? true) ? nil : key
        self.gateKey = configuration.serverRoot.absoluteString
        self.keyCarryingProxy = apiKey == nil ? nil : ModelHTTP.proxyVariable(for: configuration.baseURL, environment: environment)
    }

    /// Refuses to send the key where a proxy would read it.
    private func checkKeyStaysWithTheServer() throws(AskModelError) {
        if let keyCarryingProxy {
            throw .unreachable(detail: "the API key is not sent over plain http through the proxy in $\(keyCarryingProxy); use https or add the host to no_proxy")
        }
    }

    /// Whether the configured environment variable held a key.
    public var hasAPIKey: Bool { apiKey != nil }

    public func searchWords(question: String) async throws(AskModelError) -> [String] {
        let body = requestBody(
            messages: ModelPrompts.searchWordsMessages(question: question), schemaName: "search_words",
            schema: ModelPrompts.searchWordsSchema, maxTokens: ModelPrompts.searchWordsReplyTokens)
        return try ModelPrompts.searchWords(fromModelOutput: try await complete(body))
    }

    public func pick(_ request: PickRequest) async throws(AskModelError) -> PickReply {
        guard !request.candidates.isEmpty else { return PickReply(status: .noneFit, cited: []) }
        var contextTokens = await contextWindow()
        guard var shown = ModelPrompts.fitting(request, contextTokens: contextTokens) else {
            throw .contextTooLong(detail: "the question and one snippet need more than the model's \(contextTokens) tokens")
        }
        var shrunk = false
        while true {
            let body = requestBody(
                messages: ModelPrompts.pickMessages(shown), schemaName: "pick", schema: shown.responseSchema,
                maxTokens: ModelPrompts.pickReplyTokens(candidateCount: shown.candidates.count))
            do {
                return try ModelPrompts.pickReply(fromModelOutput: try await complete(body), for: shown)
            } catch .contextTooLong(let detail) {
                // The estimate was wrong for this server: shrink once (half the candidates, and the server's own
                // figure when it gave one), then give up.
                guard !shrunk, shown.candidates.count > 1 else { throw .contextTooLong(detail: detail) }
                shrunk = true
                if let stated = Self.statedContextTokens(in: detail), stated < contextTokens {
                    contextTokens = stated
                    await gate.setContextTokens(stated)
                }
                var smaller = shown
                smaller.candidates.removeLast(shown.candidates.count - max(1, shown.candidates.count / 2))
                guard let refit = ModelPrompts.fitting(smaller, contextTokens: contextTokens) else { throw .contextTooLong(detail: detail) }
                shown = refit
            }
        }
    }

    // MARK: The call

    private var gate: CallGate {
        get async { await CallGates.shared.gate(for: gateKey) }
    }

    /// The chat completions body: temperature 0, the schema in `response_format`.
    private func requestBody(messages: [[String: String]], schemaName: String, schema: String, maxTokens: Int) -> Data {
        let schemaObject = (try? JSONSerialization.jsonObject(with: Data(schema.utf8))) ?? [String: Any]()
        var body: [String: Any] = [
            "messages": messages,
            "temperature": 0,
            "max_tokens": maxTokens,
            "stream": false,
            "response_format": ["type": "json_schema", "json_schema": ["name": schemaName, "strict": true, "schema": schemaObject]],
        ]
        if let modelName = configuration.modelName { body["model"] = modelName }
        return (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
    }

    private func urlRequest(_ url: URL, method: String, body: Data?) -> HTTPRequest {
        var request = HTTPRequest(url: url, method: method, timeoutSeconds: configuration.timeoutSeconds + 5)
        request.headers.append((name: "Accept", value: "application/json"))
        if let body {
            request.body = body
            request.headers.append((name: "Content-Type", value: "application/json"))
        }
        if let apiKey { request.headers.append((name: "Authorization", value: "Bearer \(apiKey)")) }
        return request
    }

    /// One chat completion, one at a time per server, within the timeout (waiting for the server's turn included).
    /// Returns the reply's text; every other outcome is a fault.
    private func complete(_ body: Data) async throws(AskModelError) -> String {
        try checkKeyStaysWithTheServer()
        let url = configuration.chatCompletionsURL
        let request = urlRequest(url, method: "POST", body: body)
        let gate = await gate
        let reply: HTTPReply
        do {
            reply = try await ModelHTTP.withDeadline(seconds: configuration.timeoutSeconds) {
                guard await gate.enter() else { throw CancellationError() }
                do {
                    let reply = try await ModelHTTP.send(request)
                    await gate.leave()
                    return reply
                } catch {
                    await gate.leave()
                    throw error
                }
            }
        } catch {
            throw redacted(ModelHTTP.fault(for: error, url: url, timeout: configuration.timeoutSeconds))
        }
        // The variable is named only when it held a key: a name that is not set may be the key itself, pasted into
        // the setting by mistake, and must not be repeated in a reason the user (or a log) sees.
        let keyVariable = apiKey == nil ? nil : configuration.apiKeyEnvironmentVariable
        let log = self.log
        return try redacting { () throws(AskModelError) in
            try Self.content(of: reply, apiKeyEnvironmentVariable: keyVariable) { words in
                log("the model's reply (HTTP \(reply.status)) was \(words.rawValue); its words are not shown")
            }
        }
    }

    /// One line to stderr.
    public static func logToStandardError(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

    /// What a model or its server said in words of its own, as the fixed code that stands for it.
    public enum ForeignWords: String, Sendable {
        /// An HTTP error's message (`error.message`, `message`, or a body that is not JSON).
        case serverErrorMessage = "a server error message"
        /// A context-size complaint without the figures.
        case serverContextMessage = "a context error message"
        /// `message.refusal` was set.
        case refusalField = "a refusal field"
        /// The content reads as a refusal ("I cannot ...").
        case refusalText = "a refusal in prose"
    }

    /// The server's context window per request: `/props` on llama-server (read once per server), else the assumed size.
    func contextWindow() async -> Int {
        let gate = await gate
        if let known = await gate.contextTokens { return known > 0 ? known : ModelPrompts.assumedContextTokens }
        if keyCarryingProxy != nil { return ModelPrompts.assumedContextTokens }
        let request = urlRequest(configuration.propertiesURL, method: "GET", body: nil)
        let tokens: Int
        do {
            let reply = try await ModelHTTP.withDeadline(seconds: min(configuration.timeoutSeconds, 5)) {
                try await ModelHTTP.send(request)
            }
            tokens = reply.status == 200 ? Self.contextTokens(inProperties: reply.body) ?? 0 : 0
        } catch {
            // A server that cannot answer /props will fail the call itself with a proper fault; don't cache.
            return ModelPrompts.assumedContextTokens
        }
        await gate.setContextTokens(tokens)
        return tokens > 0 ? tokens : ModelPrompts.assumedContextTokens
    }

    /// What `doctor` reports about the endpoint: whether anything answers, and the context size when it says.
    public struct Probe: Sendable, Hashable {
        /// Something answered at the configured server (any HTTP status but a proxy refusal counts).
        public var isReachable: Bool
        /// The context window per request from llama-server's `/props`; nil when the server does not say.
        public var contextTokens: Int?
        /// What was found, for the user (the key never appears in it).
        public var detail: String
    }

    /// Asks the server's `/props` (llama-server), else `/models` (OpenAI-compatible), within 5 seconds at most. Sends
    /// no chat request and costs no tokens.
    public func probe() async -> Probe {
        if let keyCarryingProxy {
            return Probe(
                isReachable: false, contextTokens: nil,
                detail: "the API key is not sent over plain http through the proxy in $\(keyCarryingProxy); use https or add the host to no_proxy")
        }
        let seconds = min(configuration.timeoutSeconds, 5)
        func get(_ url: URL) async -> Result<HTTPReply, AskModelError> {
            let request = urlRequest(url, method: "GET", body: nil)
            do {
                return .success(try await ModelHTTP.withDeadline(seconds: seconds) { try await ModelHTTP.send(request) })
            } catch {
                return .failure(redacted(ModelHTTP.fault(for: error, url: url, timeout: seconds)))
            }
        }
        switch await get(configuration.propertiesURL) {
        case .failure(let fault):
            return Probe(isReachable: false, contextTokens: nil, detail: fault.description)
        case .success(let reply) where reply.status == 200:
            let tokens = Self.contextTokens(inProperties: reply.body)
            return Probe(
                isReachable: true, contextTokens: tokens,
                detail: tokens.map { "answers; context \($0) tokens per request" } ?? "answers; it does not say its context size")
        case .success:
            switch await get(configuration.apiBase.appendingPathComponent("models")) {
            case .failure(let fault):
                return Probe(isReachable: false, contextTokens: nil, detail: fault.description)
            case .success(let reply):
                let status = reply.status == 200 ? "answers" : "answers with HTTP \(reply.status) at /models"
                return Probe(isReachable: true, contextTokens: nil, detail: status + "; it does not say its context size")
            }
        }
    }

    /// What the server says of the model it serves under `configuration`, as a short hash (see
    /// `modelIdentity(inModels:modelName:)`), from `/v1/models` within 5 seconds at most; nil when it does not say. Sends
    /// no chat request and costs no tokens.
    public func identity() async -> String? {
        if keyCarryingProxy != nil { return nil }
        let url = configuration.apiBase.appendingPathComponent("models")
        let request = urlRequest(url, method: "GET", body: nil)
        guard let reply = try? await ModelHTTP.withDeadline(seconds: min(configuration.timeoutSeconds, 5), { try await ModelHTTP.send(request) }),
            reply.status == 200
        else { return nil }
        return Self.modelIdentity(inModels: reply.body, modelName: configuration.modelName)
    }

    /// The fields of a `/v1/models` entry that say which model it is. llama-server writes `id` (its alias or file
    /// name), `owned_by` and `meta` (vocabulary, embedding size, parameters, bytes, training context, and in newer
    /// builds the file type); vLLM `root` and `parent`; Ollama and LM Studio `id` and `owned_by`. Left out: `created`
    /// (llama-server and vLLM write the time of the request), `meta.n_ctx` (a setting of the server, not the model),
    /// and anything else a server may write per request (vLLM's `permission` ids).
    static let identityFields = ["id", "owned_by", "root", "parent"]
    /// The members of llama-server's `meta` that describe the model file.
    static let identityMetaFields = ["vocab_type", "n_vocab", "n_ctx_train", "n_embd", "n_params", "size", "ftype"]

    /// A hash of what a `/v1/models` body says of the model named `modelName` (its entry by `id` or one of its
    /// `aliases`; without a name, or with none that matches, every entry): another model served under the same URL
    /// and name gives another identity. Nil when the body lists no model.
    static func modelIdentity(inModels body: Data, modelName: String?) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let entries = (object["data"] as? [[String: Any]]), !entries.isEmpty
        else { return nil }
        let named = entries.filter { entry in
            guard let modelName else { return false }
            return entry["id"] as? String == modelName || (entry["aliases"] as? [String])?.contains(modelName) == true
        }
        // In order of `id`, so the order a server lists them in does not matter.
        let chosen = (named.isEmpty ? entries : named).sorted { ($0["id"] as? String ?? "") < ($1["id"] as? String ?? "") }
        let described = chosen.map { entry -> [String: Any] in
            var kept = entry.filter { Self.identityFields.contains($0.key) }
            if let meta = entry["meta"] as? [String: Any] { kept["meta"] = meta.filter { Self.identityMetaFields.contains($0.key) } }
            return kept
        }
        guard let text = try? JSONSerialization.data(withJSONObject: described, options: [.sortedKeys]) else { return nil }
        let lines = String(decoding: text, as: UTF8.self)
        return FNV1a.hex(FNV1a.hash(lines.utf8))
    }

    /// llama-server's context size from a `/props` body: `default_generation_settings.n_ctx` (per slot), else `n_ctx`.
    static func contextTokens(inProperties body: Data) -> Int? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        let settings = object["default_generation_settings"] as? [String: Any]
        let value = settings?["n_ctx"] ?? (settings?["params"] as? [String: Any])?["n_ctx"] ?? object["n_ctx"]
        guard let tokens = (value as? NSNumber)?.intValue, tokens > 0 else { return nil }
        return tokens
    }

    /// The context size a context error states ("... context holds 512 tokens"), to budget the retry.
    static func statedContextTokens(in detail: String) -> Int? {
        guard let range = detail.range(of: "context holds ") else { return nil }
        return Int(detail[range.upperBound...].prefix { $0.isNumber })
    }

    /// The assistant's text in a chat completion reply, or the fault the reply means.
    /// Words of the model or its server are never put in a fault: `dropped` is told which kind was left out.
    static func content(
        of reply: HTTPReply, apiKeyEnvironmentVariable: String?, dropped: (ForeignWords) -> Void = { _ in }
    ) throws(AskModelError) -> String {
        let object = try? JSONSerialization.jsonObject(with: reply.body) as? [String: Any]
        switch reply.status {
        case 200..<300: break
        case 401, 403:
            let hint = apiKeyEnvironmentVariable.map { "check the key in $\($0)" } ?? "the server wants an API key: set apiKeyEnvironmentVariable to the name of a variable that holds it in the server's environment"
            throw .authRefused(detail: "HTTP \(reply.status); \(hint)")
        case 300..<400: throw .serverError(status: reply.status, detail: "the server redirected the request elsewhere; redirects are not followed")
        default:
            let error = object?["error"]
            let fields = error as? [String: Any]
            let message = (fields?["message"] as? String) ?? (error as? String) ?? (object?["message"] as? String)
                ?? String(decoding: reply.body.prefix(200), as: UTF8.self)
            let type = (fields?["type"] as? String) ?? (fields?["code"] as? String) ?? ""
            let lowered = (message + " " + type).lowercased()
            if type == "exceed_context_size_error" || type == "context_length_exceeded" || reply.status == 413
                || lowered.contains("context length") || lowered.contains("context size") || lowered.contains("context window")
            {
                let prompt = (fields?["n_prompt_tokens"] as? NSNumber)?.intValue
                let context = (fields?["n_ctx"] as? NSNumber)?.intValue
                if let prompt, let context {
                    throw .contextTooLong(detail: "the prompt needs \(prompt) tokens; the context holds \(context) tokens")
                }
                dropped(.serverContextMessage)
                throw .contextTooLong(detail: "the server said the prompt does not fit its context")
            }
            if message.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                throw .serverError(status: reply.status, detail: "no message")
            }
            dropped(.serverErrorMessage)
            throw .serverError(status: reply.status, detail: "the server's own message is not shown")
        }
        guard let object, let choices = object["choices"] as? [[String: Any]], let choice = choices.first else {
            throw .schemaMismatch(detail: "the server's reply has no choices")
        }
        let message = choice["message"] as? [String: Any]
        if let refusal = message?["refusal"] as? String, !refusal.isEmpty {
            dropped(.refusalField)
            throw .refusal(detail: "the reply's refusal is not shown")
        }
        let finishReason = choice["finish_reason"] as? String
        if finishReason == "content_filter" { throw .refusal(detail: "the server's content filter stopped the reply") }
        let content = message?["content"] as? String ?? ""
        if ModelPrompts.readsAsRefusal(content) {
            dropped(.refusalText)
            throw .refusal(detail: "the reply's words are not shown")
        }
        if finishReason == "length", (try? JSONSerialization.jsonObject(with: Data(content.utf8))) == nil {
            throw .schemaMismatch(detail: "the reply was cut off at the token limit")
        }
        return content
    }

    /// `fault` with the API key, should any server text quote it, replaced by `[key]`.
    private func redacted(_ fault: AskModelError) -> AskModelError {
        guard let apiKey else { return fault }
        func clean(_ text: String) -> String { text.replacingOccurrences(of: apiKey, with: "[key]") }
        switch fault {
        case .unreachable(let detail): return .unreachable(detail: clean(detail))
        case .authRefused(let detail): return .authRefused(detail: clean(detail))
        case .serverError(let status, let detail): return .serverError(status: status, detail: clean(detail))
        case .timeout: return fault
        case .schemaMismatch(let detail): return .schemaMismatch(detail: clean(detail))
        case .refusal(let detail): return .refusal(detail: clean(detail))
        case .contextTooLong(let detail): return .contextTooLong(detail: clean(detail))
        }
    }

    private func redacting<T>(_ body: () throws(AskModelError) -> T) throws(AskModelError) -> T {
        do { return try body() } catch { throw redacted(error) }
    }
}
