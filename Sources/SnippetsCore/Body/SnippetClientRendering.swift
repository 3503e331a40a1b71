/// What a client's snippet engine does by itself. The server renders everything else before it sends a snippet, so
/// every editor inserts what VS Code (the reference implementation) would, as far as its engine allows.
public struct SnippetEngine: Hashable, Sendable {
    /// The engine's name as `check --client` takes it (`vscode`, `helix`, …).
    public var name: String
    /// Takes LSP snippet syntax at all (`completionItem.snippetSupport`); else it gets plain text.
    public var takesSnippets: Bool
    /// Resolves VS Code's variables itself (else the server resolves them).
    public var resolvesVariables: Bool
    /// Applies `${1/regex/format/}` transforms while the user types.
    public var appliesTransforms: Bool
    /// Shows `${1|a,b|}` as a choice.
    public var showsChoices: Bool
    /// Keeps a placeholder nested in another as a stop of its own.
    public var nestsPlaceholders: Bool
    /// Applies VS Code's rule that the first placeholder with a default gives every occurrence of its tabstop that
    /// value; otherwise the server spells the value out at each occurrence.
    public var sharesTabstopValues: Bool
    /// Runs `` `…` `` in snippet text as code (yasnippet runs Emacs Lisp), so backticks must be escaped.
    public var evaluatesBackticks: Bool

    /// An engine with these abilities.
    public init(
        name: String, takesSnippets: Bool = true, resolvesVariables: Bool, appliesTransforms: Bool, showsChoices: Bool,
        nestsPlaceholders: Bool = true, sharesTabstopValues: Bool = false, evaluatesBackticks: Bool = false
    ) {
        self.name = name
        self.takesSnippets = takesSnippets
        self.resolvesVariables = resolvesVariables
        self.appliesTransforms = appliesTransforms
        self.showsChoices = showsChoices
        self.nestsPlaceholders = nestsPlaceholders
        self.sharesTabstopValues = sharesTabstopValues
        self.evaluatesBackticks = evaluatesBackticks
    }

    /// VS Code: the whole grammar.
    public static let vscode = SnippetEngine(
        name: "vscode", resolvesVariables: true, appliesTransforms: true, showsChoices: true, sharesTabstopValues: true)
    /// Neovim's `vim.snippet` (0.10+): choices, no transforms, a few variables (with values unlike VS Code's, so the
    /// server resolves them all), nested placeholders flattened into their parent's text, and an error when one
    /// tabstop has two different defaults.
    public static let neovim = SnippetEngine(
        name: "neovim", resolvesVariables: false, appliesTransforms: false, showsChoices: true,
        nestsPlaceholders: false)
    /// Helix: tabstops, placeholders and choices; no variables, no transforms.
    public static let helix = SnippetEngine(
        name: "helix", resolvesVariables: false, appliesTransforms: false, showsChoices: true)
    /// Zed: tabstops, placeholders and choices; no variables, no transforms.
    public static let zed = SnippetEngine(
        name: "zed", resolvesVariables: false, appliesTransforms: false, showsChoices: true)
    /// Emacs through eglot or lsp-mode: snippets go to yasnippet, which has no choices, no LSP variables or
    /// transforms, and evaluates backquoted Emacs Lisp.
    public static let yasnippet = SnippetEngine(
        name: "emacs-eglot", resolvesVariables: false, appliesTransforms: false, showsChoices: false,
        evaluatesBackticks: true)
    /// A snippet-capable client the server does not know: it resolves the variables (as it always did for unknown
    /// clients) and leaves the rest of the grammar to the client.
    public static let generic = SnippetEngine(
        name: "generic", resolvesVariables: false, appliesTransforms: true, showsChoices: true)
    /// A client without snippet support: plain text.
    public static let plain = SnippetEngine(
        name: "plain", takesSnippets: false, resolvesVariables: false, appliesTransforms: false, showsChoices: false,
        nestsPlaceholders: false)

    /// The engines `check --client` knows, by name.
    public static let named: [(name: String, engine: SnippetEngine)] = [
        ("neovim", .neovim), ("vscode", .vscode), ("helix", .helix), ("emacs-eglot", .yasnippet),
        ("emacs-lsp-mode", SnippetEngine.yasnippet.renamed("emacs-lsp-mode")), ("zed", .zed), ("plain", .plain),
    ]

    /// The engine behind a client, from `clientInfo.name` (case-insensitive); nil when the name says nothing.
    public static func forClient(named clientName: String?) -> SnippetEngine? {
        guard let name = clientName?.lowercased() else { return nil }
        if name.hasPrefix("visual studio code") || name == "vscodium" || name.hasPrefix("code - oss") {
            return .vscode
        }
        if name.contains("neovim") || name == "nvim" { return .neovim }
        if name.contains("helix") { return .helix }
        if name == "zed" || name.hasPrefix("zed ") { return .zed }
        if name.contains("eglot") { return .yasnippet }
        if name == "emacs" || name.contains("lsp-mode") { return SnippetEngine.yasnippet.renamed("emacs-lsp-mode") }
        return nil
    }

    /// This engine under another name.
    public func renamed(_ newName: String) -> SnippetEngine {
        var copy = self
        copy.name = newName
        return copy
    }
}

extension SnippetBody {
    /// The text to insert in a client with `engine`: plain text when it takes no snippets, else LSP snippet text
    /// with everything the engine cannot do done here. `resolve` gives the server's variable values (it may know
    /// none, e.g. for VS Code, which resolves them itself).
    public func insertText(for engine: SnippetEngine, resolving resolve: (String) -> String? = { _ in nil }) -> String {
        guard engine.takesSnippets else { return plainText(resolving: resolve) }
        var body = withUnknownVariablesAsPlaceholders()
        if !engine.sharesTabstopValues { body = body.withSharedTabstopValues() }
        let options = SnippetLSPWriter.Options(
            serverResolvesVariables: !engine.resolvesVariables, choicesAsPlaceholders: !engine.showsChoices,
            tabstopTransformsAsMirrors: !engine.appliesTransforms, escapesBackticks: engine.evaluatesBackticks)
        return withoutActuallyEscaping(resolve) { resolve in
            var writer = SnippetLSPWriter(resolve: resolve, options: options)
            writer.write(body.elements)
            return writer.finish()
        }
    }

    /// VS Code's reading of a variable that is neither known nor given a default (`${foo}`): a placeholder holding
    /// its name, numbered after the body's highest tabstop, one number per name (VS Code's `SnippetBodyInsights`).
    /// Like VS Code, variables' defaults are not searched, and the order of numbers is breadth-first.
    public func withUnknownVariablesAsPlaceholders() -> SnippetBody {
        var highest = 0
        var hasUnknown = false
        func scan(_ elements: [SnippetElement]) {
            for element in elements {
                switch element {
                case .tabstop(let number), .choice(let number, _), .transform(.tabstop(let number), _):
                    highest = max(highest, number)
                case .placeholder(let number, let children):
                    highest = max(highest, number)
                    scan(children)
                case .variable(let name, let defaultElements):
                    if defaultElements == nil && !SnippetVariables.isKnown(name) { hasUnknown = true }
                    scan(defaultElements ?? [])
                case .transform(.variable(let name), _):
                    if !SnippetVariables.isKnown(name) { hasUnknown = true }
                case .text:
                    break
                }
            }
        }
        scan(elements)
        guard hasUnknown else { return self }
        var numbers: [String: Int] = [:]
        var queue = elements[...]
        while let element = queue.popFirst() {
            switch element {
            case .variable(let name, nil), .transform(.variable(let name), _):
                if !SnippetVariables.isKnown(name), numbers[name] == nil {
                    highest += 1
                    numbers[name] = highest
                }
            case .placeholder(_, let children):
                queue.append(contentsOf: children)
            case .variable, .text, .tabstop, .choice, .transform:
                break
            }
        }
        func rewrite(_ elements: [SnippetElement]) -> [SnippetElement] {
            elements.map { element in
                switch element {
                case .variable(let name, nil), .transform(.variable(let name), _):
                    guard let number = numbers[name] else { return element }
                    return .placeholder(number, [.text(name)])
                case .placeholder(let number, let children):
                    return .placeholder(number, rewrite(children))
                case .variable, .text, .tabstop, .choice, .transform:
                    return element
                }
            }
        }
        return SnippetBody(elements: rewrite(elements))
    }

    /// VS Code's rule for repeated tabstops, spelled out: the first placeholder of a number (in document order)
    /// that has a default, or a choice, defines the value of every other occurrence of that number, a later choice
    /// included (`${1} ${1:asdf} ${1|a,b|}` reads `${1:asdf} ${1:asdf} ${1:asdf}`). Values that refer to other
    /// tabstops are filled in the same way, a tabstop already being filled is left bare (VS Code's cycle guard).
    /// Occurrences of a choice's number become bare tabstops, which mirror it. `$0` is never filled.
    public func withSharedTabstopValues() -> SnippetBody {
        var defining: [Int: (ordinal: Int, element: SnippetElement)] = [:]
        var ordinal = 0
        func scan(_ elements: [SnippetElement]) {
            for element in elements {
                switch element {
                case .tabstop, .transform(.tabstop, _):
                    ordinal += 1
                case .placeholder(let number, let children):
                    if number != 0, defining[number] == nil, !children.isEmpty {
                        defining[number] = (ordinal, element)
                    }
                    ordinal += 1
                    scan(children)
                case .choice(let number, _):
                    if number != 0, defining[number] == nil { defining[number] = (ordinal, element) }
                    ordinal += 1
                case .variable(_, let defaultElements):
                    scan(defaultElements ?? [])
                case .text, .transform(.variable, _):
                    break
                }
            }
        }
        scan(elements)
        guard !defining.isEmpty else { return self }

        /// Elements copied so far; past the budget the body is left as written (a value doubling at each level
        /// would otherwise grow without bound, as it does in VS Code).
        var budget = 20_000
        func tabstopNumber(of element: SnippetElement) -> Int? {
            switch element {
            case .tabstop(let number), .placeholder(let number, _), .choice(let number, _): number
            default: nil
            }
        }
        func fill(_ number: Int, stack: Set<Int>) -> SnippetElement {
            // Out of budget the result is thrown away, so stop copying (each copy costs the value's size).
            guard budget > 0, let value = defining[number]?.element, case .placeholder(_, let children) = value else {
                return .tabstop(number)  // a choice: the client mirrors it
            }
            budget -= children.count + 1
            let filled = children.map { child -> SnippetElement in
                guard let inner = tabstopNumber(of: child), inner != 0, defining[inner] != nil, !stack.contains(inner),
                    budget > 0, stack.count < SnippetBodyParser.maximumDepth
                else { return child }
                return fill(inner, stack: stack.union([inner]))
            }
            return .placeholder(number, filled)
        }
        func placeholderCount(_ elements: [SnippetElement]) -> Int {
            elements.reduce(0) { count, element in
                switch element {
                case .tabstop, .choice, .transform(.tabstop, _): count + 1
                case .placeholder(_, let children): count + 1 + placeholderCount(children)
                case .variable(_, let defaultElements): count + placeholderCount(defaultElements ?? [])
                case .text, .transform(.variable, _): count
                }
            }
        }
        ordinal = 0
        func rebuild(_ elements: [SnippetElement]) -> [SnippetElement] {
            elements.map { element in
                switch element {
                case .tabstop(let number):
                    ordinal += 1
                    return number != 0 && defining[number] != nil ? fill(number, stack: []) : element
                case .placeholder(let number, let children):
                    let mine = ordinal
                    ordinal += 1
                    if number != 0, let definer = defining[number], definer.ordinal != mine {
                        ordinal += placeholderCount(children)
                        return fill(number, stack: [])
                    }
                    return .placeholder(number, rebuild(children))
                case .choice(let number, _):
                    let mine = ordinal
                    ordinal += 1
                    if number != 0, let definer = defining[number], definer.ordinal != mine {
                        return fill(number, stack: [])
                    }
                    return element
                case .transform(.tabstop, _):
                    ordinal += 1
                    return element
                case .variable(let name, let defaultElements):
                    return .variable(name, default: defaultElements.map(rebuild))
                case .text, .transform(.variable, _):
                    return element
                }
            }
        }
        let rebuilt = rebuild(elements)
        return budget > 0 ? SnippetBody(elements: rebuilt) : self
    }
}

/// Something a snippet does in VS Code that it cannot do in another editor, and why.
public struct SnippetLoss: Hashable, Sendable {
    /// Kinds of loss, each counted in `check --client`'s summary.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// A tabstop the user cannot jump to (plain text has none).
        case tabstop
        /// A choice offered as its first option only.
        case choice
        /// A transform of a tabstop not applied while typing.
        case transform
        /// A placeholder nested in another that is not a stop of its own.
        case nestedPlaceholder = "nested-placeholder"
        /// A variable only the editor knows (clipboard, selection) that the server resolves to nothing.
        case editorVariable = "editor-variable"
    }

    /// What kind of thing is lost.
    public var kind: Kind
    /// A plain sentence: what the user gets instead, and why.
    public var message: String

    /// A loss of `kind`.
    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }
}

extension SnippetBody {
    /// Variables only the editor can know: the server renders them empty (or as their default).
    static let editorOnlyVariables: Set<String> = ["CLIPBOARD", "TM_SELECTED_TEXT", "SELECTION"]

    /// What this body loses in a client with `engine`, compared with VS Code, in document order.
    public func losses(in engine: SnippetEngine) -> [SnippetLoss] {
        var losses: [SnippetLoss] = []
        let body = withUnknownVariablesAsPlaceholders()
        let editor = engine.name
        if !engine.takesSnippets {
            var numbers: [Int] = []
            func collect(_ elements: [SnippetElement]) {
                for element in elements {
                    switch element {
                    case .tabstop(let number), .choice(let number, _), .transform(.tabstop(let number), _):
                        if number != 0, !numbers.contains(number) { numbers.append(number) }
                    case .placeholder(let number, let children):
                        if number != 0, !numbers.contains(number) { numbers.append(number) }
                        collect(children)
                    case .variable(_, let defaultElements):
                        collect(defaultElements ?? [])
                    case .text, .transform(.variable, _):
                        break
                    }
                }
            }
            collect(body.elements)
            for number in numbers {
                losses.append(
                    SnippetLoss(
                        kind: .tabstop,
                        message: "tabstop $\(number) is not a stop: \(editor) takes no snippets, so the text is inserted "
                            + "with every default filled in"))
            }
        }
        var seenVariables: Set<String> = []
        func visit(_ elements: [SnippetElement], inside parent: Int?) {
            for element in elements {
                switch element {
                case .choice(let number, let options):
                    if !engine.showsChoices {
                        losses.append(
                            SnippetLoss(
                                kind: .choice,
                                message: "the choice ${\(number)|…|} offers only its first option '\(options.first ?? "")'"
                                    + (engine.takesSnippets
                                        ? " as a placeholder: \(editor) has no choices"
                                        : ": \(editor) takes no snippets")))
                    }
                    if let parent, !engine.nestsPlaceholders, engine.takesSnippets {
                        losses.append(nested(number, in: parent, editor: editor))
                    }
                case .transform(.tabstop(let number), _):
                    if !engine.appliesTransforms && engine.takesSnippets {
                        losses.append(
                            SnippetLoss(
                                kind: .transform,
                                message: "the transform of tabstop \(number) is not applied: \(editor) applies no "
                                    + "transforms, so the text typed into $\(number) is repeated unchanged"))
                    }
                case .tabstop(let number):
                    if let parent, !engine.nestsPlaceholders, engine.takesSnippets, number != 0 {
                        losses.append(nested(number, in: parent, editor: editor))
                    }
                case .placeholder(let number, let children):
                    if let parent, !engine.nestsPlaceholders, engine.takesSnippets, number != 0 {
                        losses.append(nested(number, in: parent, editor: editor))
                    }
                    visit(children, inside: parent ?? number)
                case .variable(let name, let defaultElements):
                    if !engine.resolvesVariables, Self.editorOnlyVariables.contains(name),
                        seenVariables.insert(name).inserted
                    {
                        losses.append(editorVariable(name, hasDefault: defaultElements != nil, editor: editor))
                    }
                    visit(defaultElements ?? [], inside: parent)
                case .transform(.variable(let name), _):
                    if !engine.resolvesVariables, Self.editorOnlyVariables.contains(name),
                        seenVariables.insert(name).inserted
                    {
                        losses.append(editorVariable(name, hasDefault: false, editor: editor))
                    }
                case .text:
                    break
                }
            }
        }
        visit(body.elements, inside: nil)
        return losses
    }

    private func nested(_ number: Int, in parent: Int, editor: String) -> SnippetLoss {
        SnippetLoss(
            kind: .nestedPlaceholder,
            message: "tabstop $\(number) inside placeholder $\(parent) is not a stop of its own: \(editor) inserts a "
                + "nested placeholder as plain text of the outer one")
    }

    private func editorVariable(_ name: String, hasDefault: Bool, editor: String) -> SnippetLoss {
        let what = name == "CLIPBOARD" ? "the clipboard" : "the selection"
        return SnippetLoss(
            kind: .editorVariable,
            message: "$\(name) is inserted \(hasDefault ? "as its default" : "empty"): \(editor) does not resolve "
                + "variables and the server cannot see \(what)")
    }
}
