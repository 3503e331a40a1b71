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
    public func applying(_ json: JSONValue?) -> (settings: ServerSettings, problems: [Problem]) {
        var object = json
        if let inner = object?["settings"], inner.objectValue != nil || inner == .null { object = inner }
        if let inner = object?["snippets"], inner.objectValue != nil { object = inner }
        guard let members = object?.objectValue else { return (self, []) }
        var result = self
        var problems: [Problem] = []
        for setting in Self.declarations {
            if let value = members[setting.key] { setting.apply(value, &result, &problems) }
        }
        return (result, problems)
    }

    /// Every setting, declared once: its key (under `snippets`), its default as the JSON an editor's manifest
    /// gives, the values it takes, and how a value is applied (an invalid one keeps the default and says so).
    /// `applying` reads this table, and a test checks the VS Code extension's manifest against it.
    static let declarations: [SettingDeclaration] = [
        SettingDeclaration(key: "libraries", defaultValue: .null) { value, settings, problems in
            let (layers, layerProblems) = LibraryLayerSettings.layers(from: value)
            settings.libraries = layers
            problems += layerProblems
        },
        SettingDeclaration(
            key: "maxCompletionItems", defaultValue: .int(defaultMaxCompletionItems),
            minimum: maxCompletionItemsRange.lowerBound
        ) { value, settings, problems in
            if let number = value.intValue, maxCompletionItemsRange.contains(number) {
                settings.maxCompletionItems = number
            } else if let number = value.numberValue, number > Double(maxCompletionItemsRange.upperBound) {
                // Neovim's `math.maxinteger` and friends mean "no limit": the most the server sends.
                settings.maxCompletionItems = maxCompletionItemsRange.upperBound
                problems.append(Problem(
                    name: "maxCompletionItems",
                    message: "setting 'snippets.maxCompletionItems' is over the most the server sends; using \(maxCompletionItemsRange.upperBound)"))
            } else {
                settings.maxCompletionItems = defaultMaxCompletionItems
                problems.append(Problem(
                    name: "maxCompletionItems",
                    message: "setting 'snippets.maxCompletionItems' must be a positive whole number; using the default \(defaultMaxCompletionItems)"))
            }
        },
        SettingDeclaration.choosing("resolveVariables", default: VariableResolution.auto, \.resolveVariables),
        SettingDeclaration.choosing("choices", default: ChoiceRendering.auto, \.choices),
        SettingDeclaration(key: "askMarker", defaultValue: .string(defaultAskMarker)) { value, settings, problems in
            if let text = value.stringValue, text.contains(where: { !$0.isWhitespace }) {
                settings.askMarker = text
            } else {
                settings.askMarker = defaultAskMarker
                problems.append(Problem(
                    name: "askMarker",
                    message: "setting 'snippets.askMarker' must be a non-empty string; using the default \"\(defaultAskMarker)\""))
            }
        },
        SettingDeclaration(key: "saveTo", defaultValue: .null) { value, settings, problems in
            if value == .null {
                settings.saveTo = nil
            } else if let path = value.stringValue, !path.isEmpty {
                settings.saveTo = path
            } else {
                settings.saveTo = nil
                problems.append(Problem(
                    name: "saveTo",
                    message: "setting 'snippets.saveTo' must be a file path; saving to saved.code-snippets in the first library directory"))
            }
        },
        SettingDeclaration(key: "learning", defaultValue: .bool(true)) { value, settings, problems in
            if case .bool(let enabled) = value {
                settings.learning = enabled
            } else {
                settings.learning = true
                problems.append(Problem(
                    name: "learning", message: "setting 'snippets.learning' must be true or false; using the default true"))
            }
        },
        SettingDeclaration(key: "model", defaultValue: .null) { value, settings, problems in
            let (model, modelProblems) = ModelSettings.configuration(from: value)
            settings.model = model
            problems += modelProblems
            let (role, roleProblems) = ModelSettings.role(from: value)
            settings.modelRole = role
            problems += roleProblems
        },
    ]
}

/// One user setting (see `ServerSettings.declarations`).
struct SettingDeclaration: Sendable {
    /// The name under `snippets` (`maxCompletionItems`).
    let key: String
    /// The default, as a manifest writes it (`null` for "not set").
    let defaultValue: JSONValue
    /// The values an enumerated setting takes, in order; nil for any other.
    var choices: [String]? = nil
    /// The least value a number setting takes.
    var minimum: Int? = nil
    /// Applies `value` to the settings, adding a problem (and keeping a default) when it cannot be used.
    let apply: @Sendable (JSONValue, inout ServerSettings, inout [ServerSettings.Problem]) -> Void

    init(
        key: String, defaultValue: JSONValue, choices: [String]? = nil, minimum: Int? = nil,
        apply: @escaping @Sendable (JSONValue, inout ServerSettings, inout [ServerSettings.Problem]) -> Void
    ) {
        self.key = key
        self.defaultValue = defaultValue
        self.choices = choices
        self.minimum = minimum
        self.apply = apply
    }

    /// An enumerated setting stored at `keyPath`: a value naming a case sets it, anything else keeps `fallback`
    /// with a problem listing every case (`must be "auto", "always" or "never"`).
    static func choosing<Value: RawRepresentable & CaseIterable & Sendable>(
        _ key: String, default fallback: Value, _ keyPath: WritableKeyPath<ServerSettings, Value> & Sendable
    ) -> SettingDeclaration where Value.RawValue == String {
        SettingDeclaration(
            key: key, defaultValue: .string(fallback.rawValue), choices: Value.allCases.map(\.rawValue)
        ) { value, settings, problems in
            if let text = value.stringValue, let chosen = Value(rawValue: text) {
                settings[keyPath: keyPath] = chosen
                return
            }
            let list = Value.allCases.map { "\"\($0.rawValue)\"" }.listed(conjunction: "or")
            problems.append(ServerSettings.Problem(
                name: key, message: "setting 'snippets.\(key)' must be \(list); using the default \"\(fallback.rawValue)\""))
            settings[keyPath: keyPath] = fallback
        }
    }
}
