import SnippetsCore

extension ClientCapabilities {
    /// The snippet engine behind this client, from `clientInfo.name`: plain text when the client said it takes no
    /// snippets (`completionItem.snippetSupport`), `SnippetEngine.generic` for a snippet client the server does not
    /// know.
    public var snippetEngine: SnippetEngine {
        supportsSnippets ? namedSnippetEngine : .plain
    }

    /// The engine `clientInfo.name` names, whatever `snippetSupport` says (`snippets/snippetText` always sends
    /// snippet text).
    public var namedSnippetEngine: SnippetEngine {
        SnippetEngine.forClient(named: clientName) ?? .generic
    }
}

/// How a snippet is rendered for the client: its engine as the settings adjust it, and whether the server fills in
/// variables.
public struct SnippetRenderPlan: Hashable, Sendable {
    /// What the client is assumed to do itself.
    public var engine: SnippetEngine
    /// Whether the server's variable values are used (else the resolver gives nothing).
    public var serverResolvesVariables: Bool

    /// The plan for `engine` under `settings`: `resolveVariables` `auto` resolves on the server exactly when the
    /// client cannot, `always` resolves what the server knows and leaves the rest to a client that can, `never`
    /// leaves every variable as written; `choices` `auto` keeps choices where the client shows them, `keep`
    /// always, `firstOption` never (a placeholder holding the first option).
    public init(engine: SnippetEngine, settings: ServerSettings) {
        var engine = engine
        switch settings.resolveVariables {
        case .auto:
            serverResolvesVariables = !engine.resolvesVariables
        case .always:
            serverResolvesVariables = true
        case .never:
            serverResolvesVariables = false
            engine.resolvesVariables = true
        }
        switch settings.choices {
        case .auto: break
        case .keep: engine.showsChoices = true
        case .firstOption: engine.showsChoices = false
        }
        self.engine = engine
    }
}
