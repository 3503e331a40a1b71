/// What a client's snippet engine does with `${1|a,b|}`, read from each engine's source.
public enum ChoiceSupport: String, Hashable, Sendable {
    /// Inserts the first option and offers the others in a menu (VS Code; Zed's `snippet` crate).
    case firstOptionAndMenu
    /// Offers the options in a menu when the cursor reaches the field, but inserts nothing until one is picked, so
    /// tabbing past it leaves a hole (Neovim's `vim.snippet`: a choice tabstop gets no text).
    case menuOnEmptyField
    /// Inserts nothing and shows no menu (Helix: `render.rs` renders text only for placeholders with a default).
    case emptyField
    /// Has no choice syntax at all (yasnippet reads `${1|a,b|}` as a field holding `1|a,b|`).
    case none
}

/// What a client's snippet engine does by itself. The server renders everything else before it sends a snippet, so
/// every editor inserts what VS Code (the reference implementation) would, as far as its engine allows.
///
/// Which client has which engine, and the names `check --client` takes, are decided in one place, the server's
/// `KnownClient` table (by `clientInfo.name`, else by the shape of the client's capabilities); this type only says
/// what each engine does.
public struct SnippetEngine: Hashable, Sendable {
    /// The engine's name as `check --client` takes it (`vscode`, `helix`, …).
    public var name: String
    /// Takes LSP snippet syntax at all (`completionItem.snippetSupport`); else it gets plain text.
    public var takesSnippets: Bool
    /// Resolves VS Code's variables itself (else the server resolves them).
    public var resolvesVariables: Bool
    /// Applies `${1/regex/format/}` transforms while the user types.
    public var appliesTransforms: Bool
    /// What the engine does with a choice.
    public var choiceSupport: ChoiceSupport
    /// Whether the server sends `${1|a,b|}` as a choice; else as a placeholder holding its first option, so the text
    /// never has a hole. By default exactly when the engine inserts the first option itself; the `choices` setting
    /// can change it.
    public var keepsChoices: Bool
    /// Keeps a placeholder nested in another as a stop of its own.
    public var nestsPlaceholders: Bool
    /// Applies VS Code's rule that the first placeholder with a default gives every occurrence of its tabstop that
    /// value; otherwise the server spells the value out at each occurrence.
    public var sharesTabstopValues: Bool
    /// Runs code written in snippet text: yasnippet evaluates `` `…` `` and, inside fields, `$(…)` as Emacs Lisp.
    /// Everything it would evaluate is escaped (`YasnippetReading`).
    public var evaluatesCode: Bool
    /// The engine is not known, so it may be one that runs code (an Emacs client the server does not recognise
    /// hands snippets to yasnippet): a body whose snippet text yasnippet would evaluate is sent as plain text.
    public var mayEvaluateCode: Bool

    /// An engine with these abilities.
    public init(
        name: String, takesSnippets: Bool = true, resolvesVariables: Bool, appliesTransforms: Bool,
        choiceSupport: ChoiceSupport, nestsPlaceholders: Bool = true, sharesTabstopValues: Bool = false,
        evaluatesCode: Bool = false, mayEvaluateCode: Bool = false
    ) {
        self.name = name
        self.takesSnippets = takesSnippets
        self.resolvesVariables = resolvesVariables
        self.appliesTransforms = appliesTransforms
        self.choiceSupport = choiceSupport
        self.keepsChoices = choiceSupport == .firstOptionAndMenu
        self.nestsPlaceholders = nestsPlaceholders
        self.sharesTabstopValues = sharesTabstopValues
        self.evaluatesCode = evaluatesCode
        self.mayEvaluateCode = mayEvaluateCode
    }

    /// VS Code: the whole grammar.
    public static let vscode = SnippetEngine(
        name: "vscode", resolvesVariables: true, appliesTransforms: true, choiceSupport: .firstOptionAndMenu,
        sharesTabstopValues: true)
    /// Neovim's `vim.snippet` (0.10+): a choice gets a menu but no text, no transforms, a few variables (with values
    /// unlike VS Code's, so the server resolves them all), nested placeholders flattened into their parent's text,
    /// and an error when one tabstop has two different defaults.
    public static let neovim = SnippetEngine(
        name: "neovim", resolvesVariables: false, appliesTransforms: false, choiceSupport: .menuOnEmptyField,
        nestsPlaceholders: false)
    /// Helix: tabstops and placeholders; a choice renders as nothing, with no menu; no variables, no transforms.
    public static let helix = SnippetEngine(
        name: "helix", resolvesVariables: false, appliesTransforms: false, choiceSupport: .emptyField)
    /// Zed: tabstops, placeholders and choices (the first option inserted, the rest in a menu); no variables, no
    /// transforms.
    public static let zed = SnippetEngine(
        name: "zed", resolvesVariables: false, appliesTransforms: false, choiceSupport: .firstOptionAndMenu)
    /// Emacs through eglot or lsp-mode: snippets go to yasnippet, which has no choices, no LSP variables or
    /// transforms, and evaluates backquoted Emacs Lisp and `$(…)` in fields.
    public static let yasnippet = SnippetEngine(
        name: "emacs-eglot", resolvesVariables: false, appliesTransforms: false, choiceSupport: .none,
        evaluatesCode: true)
    /// A snippet-capable client the server does not know: it resolves the variables (as it always did for unknown
    /// clients), sends each choice as its first option (an engine may insert a choice empty) and leaves the rest of
    /// the grammar to the client; it may be yasnippet, so nothing yasnippet would evaluate is sent as a snippet.
    public static let generic = SnippetEngine(
        name: "generic", resolvesVariables: false, appliesTransforms: true, choiceSupport: .emptyField,
        mayEvaluateCode: true)
    /// A client without snippet support: plain text.
    public static let plain = SnippetEngine(
        name: "plain", takesSnippets: false, resolvesVariables: false, appliesTransforms: false, choiceSupport: .none,
        nestsPlaceholders: false)

    /// Whether snippet text for this engine is checked against what yasnippet would evaluate.
    public var guardsAgainstCode: Bool { evaluatesCode || mayEvaluateCode }

    /// This engine under another name.
    public func renamed(_ newName: String) -> SnippetEngine {
        var copy = self
        copy.name = newName
        return copy
    }
}

/// What is inserted for a snippet: LSP snippet text, or plain text (`insertTextFormat` 2 or 1).
public struct SnippetInsertion: Hashable, Sendable {
    /// The text.
    public var text: String
    /// Whether `text` is LSP snippet syntax (else plain text).
    public var isSnippet: Bool

    /// An insertion of `text`.
    public init(text: String, isSnippet: Bool) {
        self.text = text
        self.isSnippet = isSnippet
    }
}

/// yasnippet 0.14's reading of snippet text (`yas--snippet-parse-create`), as far as it decides what is run as
/// Emacs Lisp. It first protects every backquote with a backslash before it, then evaluates each remaining
/// `` `…` ``; then it protects `\\`, `` \` ``, `\"`, `\'`, `\$`, `\}`, `\{`, `\(`, `\)` (in that order, each all
/// through the text) and reads `$(…)` and `$$(…)` inside a field, and `${N:$(…)}`, as Lisp. lsp-mode escapes
/// backquotes itself first (`lsp--to-yasnippet-snippet`), which only protects more.
public enum YasnippetReading {
    /// The characters yasnippet protects after a backslash, in its order (`yas--escaped-characters`).
    static let escaped: [Character] = ["\\", "`", "\"", "'", "$", "}", "{", "(", ")"]

    /// Whether yasnippet would evaluate anything in `text`: a backquote without a backslash before it, or an
    /// unprotected `$` followed (after white space) by `(`. Conservative: an unpaired backquote counts too.
    public static func wouldEvaluate(_ text: String) -> Bool {
        guard text.contains(where: { $0 == "`" || $0 == "$" }) else { return false }
        let characters = Array(text)
        // Pass 1: only backquotes are protected, whatever precedes the backslash.
        var protected = [Bool](repeating: false, count: characters.count)
        for index in characters.indices where characters[index] == "`" {
            if index > 0, characters[index - 1] == "\\", !protected[index - 1] {
                protected[index - 1] = true
                protected[index] = true
            } else {
                return true
            }
        }
        // Pass 2: each escaped character in turn, left to right, never reusing a protected character.
        for escapedCharacter in escaped {
            var index = 0
            while index + 1 < characters.count {
                if !protected[index], !protected[index + 1], characters[index] == "\\",
                    characters[index + 1] == escapedCharacter
                {
                    protected[index] = true
                    protected[index + 1] = true
                    index += 2
                } else {
                    index += 1
                }
            }
        }
        for index in characters.indices where characters[index] == "$" && !protected[index] {
            var next = index + 1
            while next < characters.count, !protected[next], characters[next] == "$" || characters[next] == " "
                || characters[next] == "\t" || characters[next] == "\n"
            {
                next += 1
            }
            if next < characters.count, !protected[next], characters[next] == "(" { return true }
        }
        return false
    }
}

extension SnippetBody {
    /// The text to insert in a client with `engine`: plain text when it takes no snippets, else LSP snippet text
    /// with everything the engine cannot do done here. `resolve` gives the server's variable values (it may know
    /// none, e.g. for VS Code, which resolves them itself).
    public func insertText(for engine: SnippetEngine, resolving resolve: (String) -> String? = { _ in nil }) -> String {
        insertion(for: engine, resolving: resolve).text
    }

    /// What to insert in a client with `engine`: LSP snippet text with everything the engine cannot do done here, or
    /// plain text when the engine takes no snippets, or when the snippet text would make an engine that may run
    /// code (yasnippet) run it and escaping could not prevent it.
    public func insertion(for engine: SnippetEngine, resolving resolve: (String) -> String? = { _ in nil })
        -> SnippetInsertion
    {
        guard engine.takesSnippets else { return SnippetInsertion(text: plainText(resolving: resolve), isSnippet: false) }
        let text = lspText(for: engine, resolving: resolve)
        if engine.guardsAgainstCode, YasnippetReading.wouldEvaluate(text) {
            return SnippetInsertion(text: plainText(resolving: resolve), isSnippet: false)
        }
        return SnippetInsertion(text: text, isSnippet: true)
    }

    /// `text` as LSP snippet text without fields, escaped for yasnippet too (`$`, `}`, `\\` and backquotes).
    public static func snippetText(ofPlainText text: String) -> String {
        SnippetLSPWriter.escapeText(text, backticks: true)
    }

    /// LSP snippet text for `engine`, whatever it would do with it.
    func lspText(for engine: SnippetEngine, resolving resolve: (String) -> String?) -> String {
        var body = withUnknownVariablesAsPlaceholders()
        if !engine.sharesTabstopValues { body = body.withSharedTabstopValues() }
        let options = SnippetLSPWriter.Options(
            serverResolvesVariables: !engine.resolvesVariables, choicesAsPlaceholders: !engine.keepsChoices,
            tabstopTransformsAsMirrors: !engine.appliesTransforms, escapesCode: engine.evaluatesCode)
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
        /// Sent as plain text because an engine that may run code would run part of it.
        case code = "plain-text-for-safety"
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
        // Sent as plain text so that yasnippet cannot run it: every stop is lost, as for a client without snippets.
        let guarded = engine.takesSnippets && !insertion(for: engine).isSnippet
        if guarded {
            losses.append(
                SnippetLoss(
                    kind: .code,
                    message: engine.evaluatesCode
                        ? "sent as plain text: \(editor) (yasnippet) would run part of it as Emacs Lisp"
                        : "sent as plain text: it holds a backquote or $( that yasnippet would run as Emacs Lisp, and "
                            + "the server cannot rule out that the editor hands snippets to yasnippet"))
        }
        if !engine.takesSnippets || guarded {
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
                        message: "tabstop $\(number) is not a stop: "
                            + (guarded ? "the snippet is sent as plain text" : "\(editor) takes no snippets")
                            + ", so the text is inserted with every default filled in"))
            }
            // Plain text for safety: the stops, and the one reason, are what the user notices.
            if guarded { return losses }
        }
        var seenVariables: Set<String> = []
        func visit(_ elements: [SnippetElement], inside parent: Int?) {
            for element in elements {
                switch element {
                case .choice(let number, let options):
                    if !engine.keepsChoices || !engine.takesSnippets {
                        losses.append(choiceLoss(number, first: options.first ?? "", engine: engine))
                    } else if engine.choiceSupport != .firstOptionAndMenu {
                        losses.append(
                            SnippetLoss(
                                kind: .choice,
                                message: "the choice ${\(number)|…|} is inserted empty: \(editor) puts no text in a "
                                    + "choice until an option is picked (the choices setting keeps it)"))
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

    private func choiceLoss(_ number: Int, first: String, engine: SnippetEngine) -> SnippetLoss {
        let editor = engine.name
        let why: String
        if !engine.takesSnippets {
            why = ": \(editor) takes no snippets"
        } else {
            switch engine.choiceSupport {
            case .firstOptionAndMenu: why = " as a placeholder: the choices setting asks for it"
            case .menuOnEmptyField:
                why = " as a placeholder: \(editor) would insert a choice empty until an option is picked, so its "
                    + "menu is not offered"
            case .emptyField:
                why = engine.mayEvaluateCode
                    ? " as a placeholder: an editor the server does not know may insert a choice empty"
                    : " as a placeholder: \(editor) inserts a choice empty and shows no menu"
            case .none: why = " as a placeholder: \(editor) has no choices"
            }
        }
        return SnippetLoss(kind: .choice, message: "the choice ${\(number)|…|} offers only its first option '\(first)'" + why)
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
