import Foundation
import SnippetsCore
import SnippetsModelClient

/// The command-line options that put a language model behind `ask`, `eval` and `serve`.
public enum ModelOptions {
    /// The options, declared once for `ask`, `eval`, `doctor` and `serve`.
    public static let options = CommandOptions(
        [
            CommandOption(
                "--model-url", value: .text(placeholder: "URL"),
                help: "Ask an OpenAI-compatible server (llama-server, Ollama, vLLM, LM Studio) at URL, e.g. "
                    + "http://127.0.0.1:8080 or http://localhost:11434/v1. Without it: no model."),
            CommandOption(
                "--model", value: .text(placeholder: "NAME"),
                help: "The model name to request (llama-server needs none; Ollama e.g. llama3.2)."),
            CommandOption(
                "--model-key-env", value: .text(placeholder: "VAR"),
                help: "Send the API key held in environment variable VAR (never the key itself here)."),
            CommandOption(
                "--model-timeout", value: .text(placeholder: "SECS"),
                help: "Seconds one model call may take before falling back (default 30)."),
            CommandOption(
                "--model-candidates",
                value: .wholeNumber(
                    placeholder: "N", minimum: ModelConfiguration.candidateRange.lowerBound,
                    maximum: ModelConfiguration.candidateRange.upperBound),
                help: "How many snippets the model is shown (1 to 50, default 8)."),
            CommandOption(
                "--model-role", value: .text(placeholder: "ROLE"),
                help: "auto (default: the role measured on your library, advisory until measured), trusted (its "
                    + "\"none fits\" and its checked picks stand), advisory (it adds search words; its pick stands only "
                    + "where the deterministic picker abstains) or ignored."),
        ],
        usageSummary: "[--model-url URL ...]")

    /// The options' names.
    public static var names: Set<String> { Set(options.options.map(\.name)) }

    /// The options as `--help` lists them.
    public static var help: String { options.helpText() }

    /// The model configuration the options describe, or nil without `--model-url`.
    public static func configuration(from arguments: ParsedArguments) throws(ArgumentError) -> ModelConfiguration? {
        guard let text = arguments.value("--model-url") else {
            if let stray = names.sorted().first(where: { arguments.value($0) != nil }) {
                // `--model-key-env` may hold a pasted key: its value is only repeated when it looks like a name.
                let value = arguments.value(stray) ?? ""
                let shown = stray == "--model-key-env" ? ModelConfiguration.mentionableKeyVariable(value) ?? "…" : value
                throw .invalidValue(stray, ModelConfiguration.redactingCredentials(shown), "--model-url as well")
            }
            return nil
        }
        guard let url = ModelConfiguration.baseURL(from: text) else {
            // Never echo a credential: the URL is repeated with its user name and password blanked.
            let shown = ModelConfiguration.redactingCredentials(text)
            if shown != text {
                throw .invalidValue(
                    "--model-url", shown,
                    "an http or https URL without a user name or password (give the key's variable with --model-key-env)")
            }
            throw .invalidValue("--model-url", text, "an http or https URL such as http://127.0.0.1:8080")
        }
        var configuration = ModelConfiguration(baseURL: url, modelName: arguments.value("--model"))
        if let variable = arguments.value("--model-key-env") {
            guard ModelConfiguration.isEnvironmentVariableName(variable) else {
                throw .invalidValue("--model-key-env", "…", "the name of an environment variable, not the key itself")
            }
            configuration.apiKeyEnvironmentVariable = variable
        }
        if let timeout = arguments.value("--model-timeout") {
            guard let seconds = Double(timeout), ModelConfiguration.timeoutRange.contains(seconds) else {
                throw .invalidValue("--model-timeout", timeout, "seconds from 0.1 to 600")
            }
            configuration.timeoutSeconds = seconds
        }
        if let number = try arguments.wholeNumber("--model-candidates") { configuration.candidates = number }
        return configuration
    }

    /// `--model-role`: `auto` when not given.
    public static func role(from arguments: ParsedArguments) throws(ArgumentError) -> ModelRoleSetting {
        guard let text = arguments.value("--model-role") else { return .auto }
        guard let role = ModelRoleSetting(rawValue: text) else {
            throw .invalidValue("--model-role", text, ModelRoleSetting.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return role
    }

    /// What to warn about before asking: a key variable that is not set.
    public static func warnings(for configuration: ModelConfiguration?, environment: [String: String]) -> [String] {
        guard let variable = configuration?.apiKeyEnvironmentVariable, (environment[variable] ?? "").isEmpty else { return [] }
        guard let name = ModelConfiguration.mentionableKeyVariable(variable) else {
            return ["warning: --model-key-env names a variable that is not set; sending no key (give the name of the "
                + "variable that holds the key, not the key)"]
        }
        return ["warning: --model-key-env names \(name), which is not set; sending no key"]
    }

    /// The client for `configuration`, reading its key from `environment`; `log` takes its stderr lines.
    public static func model(
        for configuration: ModelConfiguration?, environment: [String: String], log: @escaping @Sendable (String) -> Void
    ) -> (any AskModel)? {
        configuration.map { OpenAICompatibleModel(configuration: $0, environment: environment, log: log) }
    }
}
