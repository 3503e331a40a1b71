import Foundation

/// Where the model is and how to talk to it: an OpenAI-compatible server (`llama-server`, Ollama, vLLM, LM Studio).
///
/// The API key itself is never part of the configuration: only the *name* of the environment variable that holds
/// it, so settings files, logs and results can show the configuration without showing a secret.
public struct ModelConfiguration: Hashable, Sendable, CustomStringConvertible {
    /// The default for `timeoutSeconds`: per model call, waiting for the server's one slot included.
    public static let defaultTimeoutSeconds = 30.0
    /// The default for `candidates`.
    public static let defaultCandidates = 8
    /// The most seconds a timeout may be.
    public static let timeoutRange = 0.1...600.0
    /// How many candidates a model may be shown.
    public static let candidateRange = 1...50

    /// The server's base URL, e.g. `http://127.0.0.1:8080` or `http://localhost:11434/v1`. Requests go to
    /// `<base>/v1/chat/completions` (or `<base>/chat/completions` when the base already ends in `/v1`) and nowhere else.
    public var baseURL: URL
    /// The model name sent as `model`; nil sends none (llama-server serves the one model it loaded).
    public var modelName: String?
    /// The name of the environment variable holding the API key, sent as `Authorization: Bearer` to `baseURL` only.
    public var apiKeyEnvironmentVariable: String?
    /// Seconds one model call may take before the ask falls back.
    public var timeoutSeconds: Double
    /// How many retrieved candidates the ask looks at (and shows the model).
    public var candidates: Int

    public init(
        baseURL: URL, modelName: String? = nil, apiKeyEnvironmentVariable: String? = nil,
        timeoutSeconds: Double = defaultTimeoutSeconds, candidates: Int = defaultCandidates
    ) {
        self.baseURL = baseURL
        self.modelName = modelName
        self.apiKeyEnvironmentVariable = apiKeyEnvironmentVariable
        self.timeoutSeconds = timeoutSeconds
        self.candidates = candidates
    }

    /// `text` as a base URL: `http` or `https` with a host, no query, fragment or credentials; nil otherwise.
    public static func baseURL(from text: String) -> URL? {
        guard let components = URLComponents(string: text.trimmingCharacters(in: .whitespaces)),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty,
            components.query == nil, components.fragment == nil, components.user == nil, components.password == nil
        else { return nil }
        return components.url
    }

    /// `text` with anything that could be a user name or password (what precedes an `@` in a URL's authority)
    /// replaced by `***`, for messages that repeat a URL someone gave: a credential is never echoed.
    public static func redactingCredentials(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text }
        let authority = text.range(of: "://").map(\.upperBound).flatMap { $0 <= at ? $0 : nil } ?? text.startIndex
        return String(text[..<authority]) + "***@" + text[text.index(after: at)...]
    }

    /// Whether `name` can be an environment variable's name (letters, digits, `_`; not starting with a digit).
    /// How a message may name the key variable `name`: as written when it looks like an environment variable (upper
    /// case, digits and `_`, such as `OPENAI_API_KEY`), else not at all, since a value like `sk_live_…` that is not
    /// set is more likely the key itself, pasted into the setting, and must not be repeated in a log or a warning.
    public static func mentionableKeyVariable(_ name: String) -> String? {
        name.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" } ? name : nil
    }

    /// The prefix every key variable named in editor settings must have (or be exactly `openAIKeyVariable`).
    public static let keyVariablePrefix = "SNIPPETS_"
    /// The one conventional name settings may give besides the `SNIPPETS_` ones.
    public static let openAIKeyVariable = "OPENAI_API_KEY"

    /// Whether editor settings may name `name` as the key variable: `OPENAI_API_KEY` or `SNIPPETS_…`. Settings can
    /// come from a repository (a workspace's settings file), so they must not be able to pick `AWS_SECRET_ACCESS_KEY`
    /// or `GITHUB_TOKEN` from the server's environment and send it as a bearer token; the command line may name any.
    public static func isKeyVariableAllowedInSettings(_ name: String) -> Bool {
        name == openAIKeyVariable || (name.hasPrefix(keyVariablePrefix) && name.count > keyVariablePrefix.count)
    }

    public static func isEnvironmentVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || CharacterSet.alphanumerics.contains($0)) }
    }

    /// The chat completions endpoint.
    public var chatCompletionsURL: URL { apiBase.appendingPathComponent("chat/completions") }

    /// llama-server's `/props` (its context size), at the server's root.
    public var propertiesURL: URL { serverRoot.appendingPathComponent("props") }

    /// `<base>/v1`.
    var apiBase: URL {
        baseURL.path.hasSuffix("/v1") || baseURL.path.hasSuffix("/v1/") ? baseURL : serverRoot.appendingPathComponent("v1")
    }

    /// The base without a trailing `/v1`.
    var serverRoot: URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)!
        var path = components.path
        while path.hasSuffix("/") { path.removeLast() }
        if path.hasSuffix("/v1") { path.removeLast(3) }
        components.path = path
        return components.url!
    }

    /// Says which server and model, never the key.
    public var description: String {
        var text = "\(baseURL.absoluteString)"
        if let modelName { text += " model \(modelName)" }
        if let apiKeyEnvironmentVariable { text += " key from $\(apiKeyEnvironmentVariable)" }
        return text
    }
}
