import Foundation
import SnippetsCore
import SnippetsModelClient

/// The `model` setting: `{url, name, apiKeyEnvironmentVariable, timeoutSeconds, candidates, role}`; absent or `null`
/// asks without a model (the deterministic default).
enum ModelSettings {
    /// The configuration `value` describes, and what was wrong with it. An unusable `url` (or a value that is not
    /// an object) means no model; other invalid members fall back to their defaults. Each problem names its setting.
    static func configuration(from value: JSONValue) -> (configuration: ModelConfiguration?, problems: [ServerSettings.Problem]) {
        if value == .null { return (nil, []) }
        guard let members = value.objectValue else {
            return (nil, [problem("model", "must be an object such as {\"url\": \"http://127.0.0.1:8080\"} or null; asking without a model")])
        }
        var problems: [ServerSettings.Problem] = []
        guard let text = members["url"]?.stringValue, let url = ModelConfiguration.baseURL(from: text) else {
            return (nil, [problem("model.url", "must be an http or https URL such as \"http://127.0.0.1:8080\"; asking without a model")])
        }
        var configuration = ModelConfiguration(baseURL: url)
        if let name = members["name"], name != .null {
            if let text = name.stringValue, !text.trimmingCharacters(in: .whitespaces).isEmpty {
                configuration.modelName = text
            } else {
                problems.append(problem("model.name", "must be a model name such as \"llama3.2\"; sending none"))
            }
        }
        if let variable = members["apiKeyEnvironmentVariable"], variable != .null {
            if let text = variable.stringValue, ModelConfiguration.isEnvironmentVariableName(text),
                !ModelConfiguration.isKeyVariableAllowedInSettings(text)
            {
                // Not named back: it may be the key itself pasted in, or a secret's name a repository chose.
                problems.append(problem(
                    "model.apiKeyEnvironmentVariable",
                    "must be \(ModelConfiguration.openAIKeyVariable) or start with \(ModelConfiguration.keyVariablePrefix) "
                        + "(settings may come from a repository, so they cannot pick any other variable); sending no key. "
                        + "Put the key in such a variable, or give --model-key-env on the command line"))
            } else if let text = variable.stringValue, ModelConfiguration.isEnvironmentVariableName(text) {
                configuration.apiKeyEnvironmentVariable = text
            } else {
                problems.append(problem(
                    "model.apiKeyEnvironmentVariable",
                    "must be the name of an environment variable (letters, digits and _), not the key itself; sending no key"))
            }
        }
        if let timeout = members["timeoutSeconds"], timeout != .null {
            if let seconds = timeout.numberValue, ModelConfiguration.timeoutRange.contains(seconds) {
                configuration.timeoutSeconds = seconds
            } else if let seconds = timeout.numberValue, seconds > ModelConfiguration.timeoutRange.upperBound {
                // A huge number (Neovim's math.maxinteger) means "as long as allowed".
                configuration.timeoutSeconds = ModelConfiguration.timeoutRange.upperBound
                problems.append(problem(
                    "model.timeoutSeconds", "is over the most allowed; using \(Int(ModelConfiguration.timeoutRange.upperBound))"))
            } else {
                problems.append(problem(
                    "model.timeoutSeconds",
                    "must be a number of seconds from 0.1 to 600; using the default \(Int(ModelConfiguration.defaultTimeoutSeconds))"))
            }
        }
        if let candidates = members["candidates"], candidates != .null {
            if let count = candidates.intValue, ModelConfiguration.candidateRange.contains(count) {
                configuration.candidates = count
            } else if let count = candidates.numberValue, count > Double(ModelConfiguration.candidateRange.upperBound) {
                configuration.candidates = ModelConfiguration.candidateRange.upperBound
                problems.append(problem(
                    "model.candidates", "is over the most allowed; using \(ModelConfiguration.candidateRange.upperBound)"))
            } else {
                problems.append(problem(
                    "model.candidates", "must be a whole number from 1 to 50; using the default \(ModelConfiguration.defaultCandidates)"))
            }
        }
        return (configuration, problems)
    }

    /// `model.role`: `auto` (the default: the role measured on the library) or `trusted`, `advisory`, `ignored`.
    static func role(from value: JSONValue) -> (role: ModelRoleSetting, problems: [ServerSettings.Problem]) {
        guard let role = value.objectValue?["role"], role != .null else { return (.auto, []) }
        if let text = role.stringValue, let setting = ModelRoleSetting(rawValue: text) { return (setting, []) }
        let choices = ModelRoleSetting.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        return (.auto, [problem("model.role", "must be one of \(choices); using \"auto\" (the role measured on your library)")])
    }

    /// Applies the rule for `workspace/didChangeConfiguration`, whose settings a repository can supply (VS Code
    /// sends the whole merged `snippets` section, workspace folders' settings included): which key is sent and the
    /// URL it is sent to are fixed when the server starts (command line or `initializationOptions`). A change may
    /// switch models, but a key goes only to the URL it went to before; otherwise the new model gets no key (until a
    /// restart with it) and the returned problem says so.
    static func keepingKeyDestination(of current: ModelConfiguration?, in changed: inout ModelConfiguration?) -> ServerSettings.Problem? {
        guard let variable = changed?.apiKeyEnvironmentVariable else { return nil }
        if let current, current.apiKeyEnvironmentVariable == variable, current.baseURL == changed?.baseURL { return nil }
        changed?.apiKeyEnvironmentVariable = nil
        return problem(
            "model.apiKeyEnvironmentVariable",
            "and the url a key is sent to are taken only when the server starts (initializationOptions or the command "
                + "line), never from a settings change, which a repository's settings can make; sending no key to "
                + "\(changed.map { $0.baseURL.host ?? "" } ?? "") until the server is restarted with it")
    }

    /// A warning when the key variable `model` names is not set in `environment` (the server's own).
    static func environmentProblems(_ model: ModelConfiguration?, environment: [String: String]) -> [ServerSettings.Problem] {
        guard let variable = model?.apiKeyEnvironmentVariable, (environment[variable] ?? "").isEmpty else { return [] }
        guard let name = ModelConfiguration.mentionableKeyVariable(variable) else {
            return [problem(
                "model.apiKeyEnvironmentVariable",
                "names a variable that is not set in the server's environment; sending no key (if it holds the key "
                    + "itself, put the key in an environment variable and give that variable's name here)")]
        }
        return [problem(
            "model.apiKeyEnvironmentVariable",
            "names \(name), which is not set in the server's environment; sending no key")]
    }

    private static func problem(_ name: String, _ text: String) -> ServerSettings.Problem {
        ServerSettings.Problem(name: name, message: "setting 'snippets.\(name)' \(text)")
    }
}

extension JSONValue {
    /// The value as a number, integer or not.
    var numberValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
}
