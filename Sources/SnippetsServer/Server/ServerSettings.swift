import SnippetsCore
import SnippetsModelClient

/// The user's settings, read from `initializationOptions` and `workspace/didChangeConfiguration`.
///
/// Names (under `snippets` in editor configs): `libraries` (array of paths, `NAME=PATH` strings or
/// `{path, name, readOnly}` objects), `maxCompletionItems` (positive
/// integer, default 50), `resolveVariables` (`"auto"` default, `"always"`, `"never"`), `choices` (`"auto"` default,
/// `"keep"`, `"firstOption"`), `askMarker` (the line
/// start that offers the ask code action, default `??`), `saveTo` (the `.code-snippets` file saved snippets go to),
/// `model` (an object `{url, name, apiKeyEnvironmentVariable, timeoutSeconds, candidates, role}`, or null for no model;
/// see `ModelSettings`), `learning` (true by default: learned words count in ask, `snippets.learn` records them,
/// unanswered questions go to the gap log; false turns all three off).
public struct ServerSettings: Sendable, Hashable {
    /// Who resolves variables such as `TM_FILENAME` that the server can compute.
    public enum VariableResolution: String, Sendable, Hashable, CaseIterable {
        /// The server resolves them unless the client is known to resolve them itself (VS Code).
        case auto
        /// The server always resolves them.
        case always
        /// The server never resolves them; the client gets `$TM_FILENAME` etc. as written.
        case never
    }

    /// How choices (`${1|a,b|}`) are sent.
    public enum ChoiceRendering: String, Sendable, Hashable, CaseIterable {
        /// As choices where the client shows them, else as a placeholder holding the first option (yasnippet).
        case auto
        /// Always as choices.
        case keep
        /// Always as a placeholder holding the first option.
        case firstOption
    }

    /// Library layers (paths as given, `~` not yet expanded); nil means the default (`--library`,
    /// `SNIPPETS_LIBRARY`, `$XDG_CONFIG_HOME/snippets`). Each entry is a string (`PATH` or `NAME=PATH`) or an object
    /// `{path, name, readOnly}`; see `LibraryLayerSettings`.
    public var libraries: [LibraryLayer]?
    /// The most completion items in one reply; more matches mark the list incomplete.
    public var maxCompletionItems: Int = ServerSettings.defaultMaxCompletionItems
    /// Who resolves variables.
    public var resolveVariables: VariableResolution = .auto
    /// How choices are sent.
    public var choices: ChoiceRendering = .auto
    /// The language model behind `snippets/ask`; nil asks deterministically.
    public var model: ModelConfiguration?
    /// `model.role`: the measured role (`auto`) or a forced one.
    public var modelRole: ModelRoleSetting = .auto

    /// A line starting with this (after indentation) offers "Ask snippets: …" as a code action.
    public var askMarker: String = ServerSettings.defaultAskMarker
    /// Where "Save selection as snippet" writes; nil: `saved.code-snippets` in the first library directory.
    public var saveTo: String?
    /// Whether ask learns from the user (learned words, `snippets.learn`, the gap log).
    public var learning = true

    /// The default for `askMarker`.
    public static let defaultAskMarker = "??"
    /// The default for `maxCompletionItems`.
    public static let defaultMaxCompletionItems = 50
    /// The values `maxCompletionItems` may take; a larger number is clamped to the upper bound, so no arithmetic on
    /// it can overflow.
    public static let maxCompletionItemsRange = 1...1000

    /// Default settings.
    public init(
        libraries: [LibraryLayer]? = nil, maxCompletionItems: Int = defaultMaxCompletionItems, resolveVariables: VariableResolution = .auto,
        model: ModelConfiguration? = nil
    ) {
        self.libraries = libraries
        self.maxCompletionItems = maxCompletionItems
        self.resolveVariables = resolveVariables
        self.model = model
    }

    /// A setting that could not be used, phrased for the user.
    public struct Problem: Hashable, Sendable {
        /// The setting's name, e.g. `maxCompletionItems`.
        public var name: String
        /// What was wrong and what is used instead.
        public var message: String
    }

    /// These settings with the members of `json` applied. Accepts `{settings: {snippets: {...}}}`,
    /// `{snippets: {...}}` and a bare object; keys not present keep their current value. An invalid value keeps
    /// the default and is reported.
    /// The case of an enumerated setting that `value` names, else `fallback` and a problem listing every case
    /// (`must be "auto", "always" or "never"`).
    private static func named<Value: RawRepresentable & CaseIterable>(
        _ name: String, _ value: JSONValue, default fallback: Value, problems: inout [Problem]
    ) -> Value where Value.RawValue == String {
        if let text = value.stringValue, let chosen = Value(rawValue: text) { return chosen }
        let list = Value.allCases.map { "\"\($0.rawValue)\"" }.listed(conjunction: "or")
        problems.append(Problem(
            name: name, message: "setting 'snippets.\(name)' must be \(list); using the default \"\(fallback.rawValue)\""))
        return fallback
    }

    public func applying(_ json: JSONValue?) -> (settings: ServerSettings, problems: [Problem]) {
        var object = json
        if let inner = object?["settings"], inner.objectValue != nil || inner == .null { object = inner }
        if let inner = object?["snippets"], inner.objectValue != nil { object = inner }
        guard let members = object?.objectValue else { return (self, []) }
        var result = self
        var problems: [Problem] = []
        if let value = members["libraries"] {
            let (layers, layerProblems) = LibraryLayerSettings.layers(from: value)
            result.libraries = layers
            problems += layerProblems
        }
        if let value = members["maxCompletionItems"] {
            if let number = value.intValue, Self.maxCompletionItemsRange.contains(number) {
                result.maxCompletionItems = number
            } else if let number = value.numberValue, number > Double(Self.maxCompletionItemsRange.upperBound) {
                // Neovim's `math.maxinteger` and friends mean "no limit": the most the server sends.
                result.maxCompletionItems = Self.maxCompletionItemsRange.upperBound
                problems.append(Problem(
                    name: "maxCompletionItems",
                    message: "setting 'snippets.maxCompletionItems' is over the most the server sends; using \(Self.maxCompletionItemsRange.upperBound)"))
            } else {
                result.maxCompletionItems = Self.defaultMaxCompletionItems
                problems.append(Problem(
                    name: "maxCompletionItems",
                    message: "setting 'snippets.maxCompletionItems' must be a positive whole number; using the default \(Self.defaultMaxCompletionItems)"))
            }
        }
        if let value = members["resolveVariables"] {
            result.resolveVariables = Self.named("resolveVariables", value, default: .auto, problems: &problems)
        }
        if let value = members["choices"] {
            result.choices = Self.named("choices", value, default: .auto, problems: &problems)
        }
        if let value = members["askMarker"] {
            if let text = value.stringValue, text.contains(where: { !$0.isWhitespace }) {
                result.askMarker = text
            } else {
                result.askMarker = Self.defaultAskMarker
                problems.append(Problem(
                    name: "askMarker",
                    message: "setting 'snippets.askMarker' must be a non-empty string; using the default \"\(Self.defaultAskMarker)\""))
            }
        }
        if let value = members["saveTo"] {
            if value == .null {
                result.saveTo = nil
            } else if let path = value.stringValue, !path.isEmpty {
                result.saveTo = path
            } else {
                result.saveTo = nil
                problems.append(Problem(
                    name: "saveTo",
                    message: "setting 'snippets.saveTo' must be a file path; saving to saved.code-snippets in the first library directory"))
            }
        }
        if let value = members["learning"] {
            if case .bool(let enabled) = value {
                result.learning = enabled
            } else {
                result.learning = true
                problems.append(Problem(
                    name: "learning", message: "setting 'snippets.learning' must be true or false; using the default true"))
            }
        }
        if let value = members["model"] {
            let (model, modelProblems) = ModelSettings.configuration(from: value)
            result.model = model
            problems += modelProblems
            let (role, roleProblems) = ModelSettings.role(from: value)
            result.modelRole = role
            problems += roleProblems
        }
        return (result, problems)
    }
}
