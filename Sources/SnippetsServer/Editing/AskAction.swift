import SnippetsCore

/// Ask as a code action and as the command `snippets.ask`, for clients that cannot send `snippets/ask` (Helix).
enum AskAction {
    /// The command that runs an ask and shows its answer (and, with a range, applies the edit).
    static let command = "snippets.ask"
    /// The code action kind of "Ask snippets: …".
    static let kind = "refactor.rewrite"
    /// How much of the question the action's title shows.
    static let titleQuestionLength = 40

    /// "Ask snippets: <question>", the question cut to fit a menu.
    static func title(for question: String) -> String {
        let flat = question.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard flat.count > titleQuestionLength else { return "Ask snippets: " + flat }
        return "Ask snippets: " + flat.prefix(titleQuestionLength - 1) + "…"
    }

    /// The ask's result through the server's `snippets/ask` handler (so a configured model is used too).
    static func ask(_ arguments: AskCommandArguments, context: RequestContext) async throws -> AskResponse {
        let document = arguments.textDocument.flatMap { context.documents[$0.uri] }
        // Only an open document scopes the search (the server knows its language).
        let params = AskParams(
            question: arguments.question, textDocument: document == nil ? nil : arguments.textDocument,
            position: document == nil ? nil : arguments.range?.start)
        return try await AskHandler.handle(params, context: context)
    }

    /// The edit replacing `target` in `document` with the best cited snippet as plain text (every variable the
    /// server knows resolved), or nil when the answer cites nothing.
    static func edit(
        for response: AskResponse, target: AskTarget, document: TextDocument, context: RequestContext
    ) -> WorkspaceEdit? {
        guard let best = response.citations.first,
            let snippet = context.library.library.snippet(withID: SnippetID(rawValue: best.id))
        else { return nil }
        let variables = SnippetRendering.variables(document: document, position: target.range.start, context: context)
        let text = target.indenting(SnippetBody.parse(snippet.body).body.plainText(resolving: variables.resolver))
        return WorkspaceEdit(changes: [document.uri: [TextEdit(range: target.range, newText: text)]])
    }

    /// What `window/showMessage` says after an ask: the answer, the status's reason when there is one, and what
    /// was inserted.
    static func message(for response: AskResponse, inserted: Bool) -> String {
        var parts = [response.answer]
        if let reason = response.reason, response.status != "answered", reason.message != response.answer {
            parts.append("(\(reason.message))")
        }
        if inserted, let best = response.citations.first {
            let place = SourceLocation.pathAndLine(uri: best.location.uri, line: best.location.range.start.line)
            parts.append("Inserted \"\(best.title)\" from \(place).")
        }
        return parts.joined(separator: " ")
    }

    /// The "Ask snippets: …" action for `target`: with its edit when the client cannot resolve one, else with
    /// `data` for `codeAction/resolve`. Its command shows the answer once the action is applied.
    static func codeAction(
        for target: AskTarget, document: TextDocument, context: RequestContext
    ) async throws -> CodeAction {
        let arguments = AskCommandArguments(
            question: target.question, textDocument: TextDocumentIdentifier(uri: document.uri), range: target.range)
        var action = CodeAction(
            title: title(for: target.question), kind: kind,
            command: showAnswerCommand(question: target.question, uri: document.uri))
        if context.client.resolvesCodeActionEdits {
            action.data = try JSONValue(encoding: arguments)
            // A client that can resolve the command too (lsp-mode) resolves only an action that has neither edit
            // nor command: an action already carrying its command would be run without its edit.
            if context.client.resolvesCodeActionCommands { action.command = nil }
        } else {
            let response = try await ask(arguments, context: context)
            action.edit = edit(for: response, target: target, document: document, context: context) ?? WorkspaceEdit(changes: [:])
        }
        return action
    }

    /// `snippets.ask` without a range: shows the answer to `question` (the edit is the action's own).
    static func showAnswerCommand(question: String, uri: String) -> LSPCommand {
        let arguments = AskCommandArguments(question: question, textDocument: TextDocumentIdentifier(uri: uri))
        return LSPCommand(title: "Show the answer", command: command, arguments: [(try? JSONValue(encoding: arguments)) ?? .null])
    }

    /// `codeAction/resolve` for an ask action: computes its edit from `data`.
    static func resolve(_ action: CodeAction, context: RequestContext) async throws -> CodeAction {
        guard let data = action.data, let arguments = try? data.decode(AskCommandArguments.self),
            let uri = arguments.textDocument?.uri, let range = arguments.range
        else { return action }
        guard let document = context.documents[uri] else {
            throw ResponseError.invalidParams("codeAction/resolve: \(uri) is not open")
        }
        let target = AskTarget(
            question: arguments.question, range: range,
            indentation: String(LineTable(document.text).content(ofLine: range.start.line).prefix { $0 == " " || $0 == "\t" }))
        let response = try await ask(arguments, context: context)
        var resolved = action
        resolved.edit = edit(for: response, target: target, document: document, context: context) ?? WorkspaceEdit(changes: [:])
        if resolved.command == nil { resolved.command = showAnswerCommand(question: arguments.question, uri: uri) }
        return resolved
    }

    /// `workspace/executeCommand` `snippets.ask`: answers, shows the answer, and with a range applies the edit
    /// through `workspace/applyEdit`. Returns the `snippets/ask` result.
    static func execute(_ arguments: AskCommandArguments, context: RequestContext) async throws -> AskResponse {
        let response = try await ask(arguments, context: context)
        var inserted = false
        if let uri = arguments.textDocument?.uri, let range = arguments.range, let document = context.documents[uri] {
            let target = AskTarget(
                question: arguments.question, range: range,
                indentation: String(LineTable(document.text).content(ofLine: range.start.line).prefix { $0 == " " || $0 == "\t" }))
            if let edit = edit(for: response, target: target, document: document, context: context) {
                await context.sendRequest("workspace/applyEdit", ApplyWorkspaceEditParams(label: title(for: arguments.question), edit: edit))
                inserted = true
            }
        }
        await context.showMessage(message(for: response, inserted: inserted), type: .info)
        return response
    }
}

extension ClientCapabilities {
    /// `textDocument.codeAction.resolveSupport.properties` includes `edit`.
    public var resolvesCodeActionEdits: Bool {
        raw["textDocument"]?["codeAction"]?["resolveSupport"]?["properties"]?.arrayValue?.contains(.string("edit")) ?? false
    }
    /// `textDocument.codeAction.resolveSupport.properties` includes `command`.
    public var resolvesCodeActionCommands: Bool {
        raw["textDocument"]?["codeAction"]?["resolveSupport"]?["properties"]?.arrayValue?.contains(.string("command")) ?? false
    }
}
