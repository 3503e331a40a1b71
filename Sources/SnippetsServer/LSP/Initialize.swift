/// The parts of `initialize`'s params the server reads. Everything else is kept in `capabilities` as JSON.
public struct InitializeParams: Decodable, Sendable {
    /// `clientInfo` (name and version).
    public struct ClientInfo: Codable, Hashable, Sendable {
        public var name: String
        public var version: String?
    }

    /// A workspace folder.
    public struct WorkspaceFolder: Codable, Hashable, Sendable {
        public var uri: String
        public var name: String
    }

    public var processId: Int?
    public var clientInfo: ClientInfo?
    public var rootUri: String?
    public var rootPath: String?
    public var capabilities: JSONValue?
    public var initializationOptions: JSONValue?
    public var workspaceFolders: [WorkspaceFolder]?
}

/// What the client said it can do, read once at `initialize`.
public struct ClientCapabilities: Sendable, Hashable {
    /// The raw `capabilities` object.
    public var raw: JSONValue
    /// `clientInfo.name`, when given. Which client it is comes from `knownClient`, never from comparing this.
    public let clientName: String?

    /// The client as `KnownClient` recognises it from both, decided once.
    public let knownClientID: KnownClient.ID?

    /// Capabilities read from `initialize`'s `capabilities` and `clientInfo.name`.
    public init(raw: JSONValue?, clientName: String? = nil) {
        self.raw = raw ?? .object([:])
        self.clientName = clientName
        knownClientID = KnownClient.recognise(name: clientName, capabilities: self.raw)?.id
    }

    private var completionItem: JSONValue? { raw["textDocument"]?["completion"]?["completionItem"] }

    /// `completionItem.snippetSupport`.
    public var supportsSnippets: Bool { completionItem?["snippetSupport"]?.boolValue ?? false }
    /// `completionItem.labelDetailsSupport`.
    public var supportsLabelDetails: Bool { completionItem?["labelDetailsSupport"]?.boolValue ?? false }
    /// `completionItem.insertReplaceSupport`.
    public var supportsInsertReplace: Bool { completionItem?["insertReplaceSupport"]?.boolValue ?? false }
    /// `completionItem.resolveSupport.properties` lists `documentation`: the client fetches an item's documentation
    /// with `completionItem/resolve` (Neovim 0.12's built-in completion lists only `additionalTextEdits` and
    /// `command`, and fills its info popup from the item as sent).
    public var resolvesDocumentation: Bool {
        completionItem?["resolveSupport"]?["properties"]?.arrayValue?.contains(.string("documentation")) ?? false
    }
    /// `completionItem.insertTextModeSupport.valueSet` holds `mode`.
    public func supportsInsertTextMode(_ mode: InsertTextMode) -> Bool {
        completionItem?["insertTextModeSupport"]?["valueSet"]?.arrayValue?.contains(.int(mode.rawValue)) ?? false
    }
    /// `window.showDocument.support`: the client opens a document the server asks it to show.
    public var supportsShowDocument: Bool { raw["window"]?["showDocument"]?["support"]?.boolValue ?? false }
    /// `window.workDoneProgress`: the client shows progress the server starts itself.
    public var supportsWorkDoneProgress: Bool { raw["window"]?["workDoneProgress"]?.boolValue ?? false }
    /// `workspace.didChangeWatchedFiles.dynamicRegistration`.
    public var supportsWatchedFileRegistration: Bool {
        raw["workspace"]?["didChangeWatchedFiles"]?["dynamicRegistration"]?.boolValue ?? false
    }
    /// `workspace.didChangeWatchedFiles.relativePatternSupport`.
    public var supportsRelativePatterns: Bool {
        raw["workspace"]?["didChangeWatchedFiles"]?["relativePatternSupport"]?.boolValue ?? false
    }
    /// `textDocument.completion.dynamicRegistration`: completion (with its trigger characters) can be registered
    /// after `initialize`, and registered again when the library's triggers change.
    public var supportsCompletionRegistration: Bool {
        raw["textDocument"]?["completion"]?["dynamicRegistration"]?.boolValue ?? false
    }
    /// `general.positionEncodings`, in the client's order of preference.
    public var positionEncodings: [String] {
        raw["general"]?["positionEncodings"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}
