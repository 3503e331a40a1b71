import SnippetsCore

/// The editors the server recognises: the one place that decides which client is which, by `clientInfo.name`, else by
/// the shape of `initialize`'s capabilities, with each one's engine and quirks. Nothing else compares client names.
///
/// Adding an editor is one `ID` case and one entry here (its `SnippetEngine`, when no existing one fits, is declared
/// beside the others in `SnippetClientRendering.swift`), plus its `initialize` fixture; `check --client` takes the
/// entry's engine name without further change.
///
/// A shape is what an editor's own source sends, kept as fixtures in `Tests/Fixtures/client-capabilities` (Debian
/// 12's eglot 1.9 and Emacs 29's eglot 1.12 send no `clientInfo`, and yasnippet, which they hand snippets to, runs
/// backquoted Emacs Lisp: knowing them matters most).
public struct KnownClient: Sendable {
    /// Which client.
    public enum ID: String, Hashable, Sendable, CaseIterable {
        case vscode, neovim, helix, zed, eglot, lspMode
    }

    /// Which client this is.
    public var id: ID
    /// Its snippet engine (when it takes snippets).
    public var engine: SnippetEngine
    /// Its built-in completion shows an item's filter text in the buffer as if typed (Neovim's), so items get none.
    public var showsFilterTextAsTyped = false
    /// Its built-in completion pops up as you type only on trigger characters (Neovim's `autotrigger`), so it needs
    /// the triggers' letters among them too.
    public var completesOnlyOnTriggerCharacters = false
    /// Its built-in completion takes one start column for a whole list, and where items' edits start in different
    /// columns, the word before the cursor (Neovim's `adjust_start_col`); it then expands a snippet in place of what
    /// was typed from there, whatever the edit's range. Items whose edit covers more than that word (a trigger of
    /// several words) or less (one offered inside a word) are sent as edits of that word.
    public var takesOneStartColumn = false
    /// Recognises `clientInfo.name`, lowercased.
    let matchesName: @Sendable (String) -> Bool
    /// Recognises the capabilities when the name says nothing (absent or unknown).
    let matchesShape: @Sendable (JSONValue) -> Bool

    /// The table, in the order names and shapes are tried (and `check --client` lists the engines).
    public static let all: [KnownClient] = [
        KnownClient(
            id: .neovim, engine: .neovim, showsFilterTextAsTyped: true, completesOnlyOnTriggerCharacters: true,
            takesOneStartColumn: true,
            matchesName: { $0.contains("neovim") || $0 == "nvim" }, matchesShape: { _ in false }),
        KnownClient(
            id: .vscode, engine: .vscode,
            matchesName: { $0.hasPrefix("visual studio code") || $0 == "vscodium" || $0.hasPrefix("code - oss") },
            matchesShape: { _ in false }),
        KnownClient(id: .helix, engine: .helix, matchesName: { $0.contains("helix") }, matchesShape: { _ in false }),
        // eglot names itself from 1.15 (clientInfo "Eglot"); before, its shape: the code action kinds it has listed
        // since 2018 (no "" kind, which lsp-mode, Helix and Neovim list) and an empty `experimental` object.
        KnownClient(
            id: .eglot, engine: .yasnippet, matchesName: { $0.contains("eglot") },
            matchesShape: { capabilities in
                capabilities["experimental"]?.objectValue?.isEmpty == true
                    && codeActionKinds(capabilities) == eglotCodeActionKinds
            }),
        // lsp-mode names itself "emacs" (8.0 and 10.0); its shape: `resolveAdditionalTextEditsSupport`, a key only it
        // sends, and its code action kinds.
        KnownClient(
            id: .lspMode, engine: SnippetEngine.yasnippet.renamed("emacs-lsp-mode"),
            matchesName: { $0 == "emacs" || $0.contains("lsp-mode") },
            matchesShape: { capabilities in
                capabilities["textDocument"]?["completion"]?["completionItem"]?["resolveAdditionalTextEditsSupport"]
                    != nil && codeActionKinds(capabilities) == [""] + eglotCodeActionKinds
            }),
        KnownClient(
            id: .zed, engine: .zed, matchesName: { $0 == "zed" || $0.hasPrefix("zed ") }, matchesShape: { _ in false }),
    ]

    /// The code action kinds eglot lists (`eglot-client-capabilities`, unchanged from 2018 to 1.24).
    static let eglotCodeActionKinds = [
        "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source",
        "source.organizeImports",
    ]

    private static func codeActionKinds(_ capabilities: JSONValue) -> [String]? {
        capabilities["textDocument"]?["codeAction"]?["codeActionLiteralSupport"]?["codeActionKind"]?["valueSet"]?
            .arrayValue?.map { $0.stringValue ?? "\u{0}" }
    }

    /// The client `clientInfo.name` names, else the one whose capability shape `capabilities` has.
    public static func recognise(name: String?, capabilities: JSONValue) -> KnownClient? {
        if let name = name.map(normalised), let named = all.first(where: { $0.matchesName(name) }) { return named }
        return all.first { $0.matchesShape(capabilities) }
    }

    /// The engines `check --client NAME` reports on: each recognised client's, then `generic` (a snippet client the
    /// server does not know) and `plain` (one without snippets).
    public static var checkableEngines: [SnippetEngine] { all.map(\.engine) + [.generic, .plain] }

    /// The engine `check --client` names `name` (in any case), nil for a name it does not know.
    public static func checkableEngine(named name: String) -> SnippetEngine? {
        let name = normalised(name)
        return checkableEngines.first { $0.name == name }
    }

    /// How a client's or an engine's name is compared: lowercased, the one way.
    private static func normalised(_ name: String) -> String { name.lowercased() }

    /// The entry for `id`.
    public static func entry(_ id: ID) -> KnownClient {
        all.first { $0.id == id }!
    }
}

extension ClientCapabilities {
    /// The client as the `KnownClient` table recognises it (nil for a client it does not know).
    public var knownClient: KnownClient? { knownClientID.map(KnownClient.entry) }

    /// The snippet engine behind this client: plain text when the client said it takes no snippets
    /// (`completionItem.snippetSupport`), `SnippetEngine.generic` for a snippet client the server does not know.
    public var snippetEngine: SnippetEngine {
        supportsSnippets ? namedSnippetEngine : .plain
    }

    /// The engine of the recognised client, whatever `snippetSupport` says (`snippets/snippetText` always sends
    /// snippet text).
    public var namedSnippetEngine: SnippetEngine {
        knownClient?.engine ?? .generic
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
    /// leaves every variable as written; `choices` `auto` keeps a choice where the engine inserts its first option
    /// itself (VS Code, Zed) and sends a placeholder holding the first option elsewhere, `keep` always keeps it,
    /// `firstOption` never does.
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
        case .keep: engine.keepsChoices = true
        case .firstOption: engine.keepsChoices = false
        }
        self.engine = engine
    }
}
