import Foundation
import SnippetsCore

/// "Save selection as snippet": the code action and the command `snippets.saveSelection`.
///
/// **Invariant:** this is the only path on which the server writes to a library file, and it only ever adds one
/// entry to one `.code-snippets` file (through `SnippetFileEdit` and `SnippetFileWriter`).
enum SaveSelection {
    /// The command name.
    static let command = "snippets.saveSelection"

    /// The languages of prose buffers (as Neovim, VS Code, eglot and lsp-mode name them): a selection saved from
    /// one is for every language, so a reply saved from a Markdown note completes in a mail or a `.txt` file too.
    /// From any other buffer a snippet is saved for that buffer's language.
    static let proseLanguages: Set<String> = [
        "", "plaintext", "text", "markdown", "gfm", "org", "gitcommit", "git-commit", "mail", "message",
    ]
    /// The action's title.
    static let title = "Save selection as snippet"
    /// The code action kind.
    static let kind = "refactor.extract"
    /// The file name used in the first library directory when `saveTo` is not set.
    static let defaultFileName = "saved.code-snippets"
    /// The longest derived title.
    static let titleLength = 50

    /// The action for a selection of at least two non-blank characters, else nil.
    static func codeAction(document: TextDocument, range: LSPRange, context: RequestContext) -> CodeAction? {
        let text = AskTarget.selectedText(in: LineTable(document.text), range: range, encoding: context.positionEncoding)
        guard text.trimmingWhitespace().count >= 2 else { return nil }
        let arguments: JSONValue = ["textDocument": ["uri": .string(document.uri)], "range": (try? JSONValue(encoding: range)) ?? .null]
        return CodeAction(title: title, kind: kind, command: LSPCommand(title: title, command: command, arguments: [arguments]))
    }

    /// The snippet titled `title` in the file at `path` as `library` serves it, if it does: its identifier is the one
    /// search, `get_snippet` and completion use (a path is made a URI one way only, `DocumentURI(filePath:)`).
    static func served(_ title: String, at path: String, in library: SnippetLibrary) -> Snippet? {
        let key = DocumentURI(filePath: path).comparableKey
        return library.snippets.first { $0.title == title && DocumentURI($0.location.uri).comparableKey == key }
    }

    /// The file saved snippets go to: `saveTo` (resolved by `LibraryPaths.absolute`, as library paths are), else
    /// `saved.code-snippets` in the first writable library layer when it is a directory, or that path itself when it
    /// is a `.code-snippets` file. Either way it must pass the one write check (`checkDestination`): a snippet file
    /// inside a writable layer, links resolved, in no read-only layer; otherwise the refusal says why.
    static func destination(
        settings: ServerSettings, layers: [LibraryLayer], environment: [String: String]
    ) throws(ResponseError) -> String {
        let path = try chosenPath(settings: settings, layers: layers, environment: environment)
        try checkDestination(path, layers: layers)
        return path
    }

    private static func chosenPath(
        settings: ServerSettings, layers: [LibraryLayer], environment: [String: String]
    ) throws(ResponseError) -> String {
        if let saveTo = settings.saveTo { return LibraryPaths.absolute(saveTo, environment: environment) }
        guard !layers.isEmpty else {
            throw refusal("no library path is set; set snippets.saveTo to a .code-snippets file")
        }
        guard let layer = layers.first(where: { LayerLoading.readOnlyLayer(containing: $0.path, in: layers) == nil }) else {
            throw refusal(
                "every library layer is read-only (\(layers.map { "'\($0.name)'" }.joined(separator: ", "))); set snippets.saveTo to a .code-snippets file in a writable folder")
        }
        let first = (layer.path as NSString).expandingTildeInPath
        if first.hasSuffix(".code-snippets") { return first }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: first, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw refusal("the library path \(first) is not a .code-snippets file or a directory; set snippets.saveTo")
        }
        return (first as NSString).appendingPathComponent(defaultFileName)
    }

    /// The one write check for a snippet file (`LayerLoading.writeTarget(of:kind:layers:)`) as a refusal; returns
    /// the file to write, links resolved. `saveTo` can come from a repository's settings, and any file in the library
    /// can be a link: neither may choose a file outside the writable layers, or inside a read-only one.
    @discardableResult
    static func checkDestination(_ path: String, layers: [LibraryLayer]) throws(ResponseError) -> String {
        do {
            return try LayerLoading.writeTarget(of: path, kind: .snippetFile, layers: layers)
        } catch {
            throw refusal(error.description)
        }
    }

    /// A title from the selection's first non-blank line, whitespace collapsed, cut at a word to fit.
    static func derivedTitle(from text: String) -> String {
        let line = text.splitIntoLines().first { $0.contains { !$0.isWhitespace } } ?? ""
        let flat = line.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !flat.isEmpty else { return "Saved snippet" }
        guard flat.count > titleLength else { return flat }
        let cut = flat.prefix(titleLength - 1)
        let atWord = cut.lastIndex(of: " ").map { cut[..<$0] } ?? cut
        return String(atWord) + "…"
    }

    /// A trigger from the title's first two words (letters and digits, lowercased, joined by `-`).
    static func derivedTrigger(from title: String) -> String {
        let words = title.lowercased().split { !($0.isLetter || $0.isNumber) }.prefix(2)
        let trigger = String(words.joined(separator: "-").prefix(24))
        return trigger.isEmpty ? "saved" : trigger
    }

    /// The most content words of a question `derivedTrigger(forQuestion:frequency:)` weighs.
    static let questionWordLimit = 32

    /// A trigger for "Save a snippet for this question" (a declined ask): the question's two most distinctive content
    /// words, in the question's order, lowercased and joined by `-` (`how do I send an invoice reminder` →
    /// `invoice-reminder`). Stop words and the words every question uses are never taken (a trigger from "how do"
    /// pops up whenever one types "how"), nor bare numbers; among the rest the words fewest snippets hold
    /// (`frequency`, the library's document frequency) win, ties going to the earlier word. `saved` when none is left.
    static func derivedTrigger(forQuestion question: String, frequency: (String) -> Int) -> String {
        // A question is a line; a description sent by a client may be anything: its first words are enough, and
        // each costs a look at its postings.
        let candidates = QuestionWord.words(in: question).filter { word in
            !word.isCompound && !word.word.allSatisfy(\.isNumber)
        }.prefix(questionWordLimit).enumerated().map { (position: $0.offset, word: $0.element.word) }
        let rarest = candidates.map { (frequency: frequency($0.word), candidate: $0) }
            .sorted { ($0.frequency, $0.candidate.position) < ($1.frequency, $1.candidate.position) }
            .prefix(2).map(\.candidate).sorted { $0.position < $1.position }
        let words = rarest.map { String($0.word.lowercased().filter { $0.isLetter || $0.isNumber }) }.filter { !$0.isEmpty }
        let trigger = String(words.joined(separator: "-").prefix(24))
        return trigger.isEmpty ? "saved" : trigger
    }

    /// `base`, or `base2`, `base3`, … : the first that `isTaken` refuses.
    static func unique(_ base: String, separator: String = "", isTaken: (String) -> Bool) -> String {
        guard isTaken(base) else { return base }
        var number = 2
        while isTaken(base + separator + String(number)) { number += 1 }
        return base + separator + String(number)
    }

    /// A refusal: shown to the user and sent as the error reply.
    static func refusal(_ reason: String) -> ResponseError {
        .requestFailed("Snippet not saved: " + reason)
    }

    /// Saves the selection, reloads the library so the snippet completes at once, and tells the user. With
    /// `preview`, writes nothing and says nothing: the result holds the names and file a save would use now, for an
    /// editor that asks the user with the derived names as defaults.
    static func execute(_ arguments: SaveSelectionArguments, context: RequestContext, writer: SnippetFileWriter = SnippetFileWriter()) async throws -> SaveSelectionResult {
        if arguments.preview == true { return try await save(arguments, context: context, writer: writer).result }
        do {
            let (result, emptyBody) = try await save(arguments, context: context, writer: writer)
            var message = "Saved \"\(result.title)\" (trigger \(result.trigger)) to \(result.path)."
            if !result.isInLibrary {
                message += " That file is not in your library paths (snippets.libraries), so it is not offered."
            }
            // A snippet saved for a declined question holds nothing yet: the client opens it at its body (`$0`) when
            // it can show a document, and the message says where it is either way.
            let opens = emptyBody != nil && context.client.supportsShowDocument
            if let emptyBody {
                let line = emptyBody.range.start.line + 1
                message += opens
                    ? " Its body is empty: it is open at line \(line), to write what the question asks for."
                    : " Its body is empty: write what the question asks for at \(result.path):\(line)."
            }
            await context.showMessage(message, type: .info)
            if opens, let emptyBody {
                await context.sendRequest(
                    ShowDocumentParams.method, ShowDocumentParams(uri: emptyBody.uri, takeFocus: true, selection: emptyBody.range))
            }
            return result
        } catch let error as ResponseError {
            await context.showMessage(error.message, type: .error)
            throw error
        }
    }

    /// Saves (or previews) the snippet; with it, for a snippet saved for a question, where its empty body is.
    private static func save(_ arguments: SaveSelectionArguments, context: RequestContext, writer: SnippetFileWriter) async throws -> (
        result: SaveSelectionResult, emptyBody: LSPLocation?
    ) {
        guard let document = context.documents[arguments.textDocument.uri] else {
            throw refusal("\(arguments.textDocument.uri) is not open")
        }
        let text = AskTarget.selectedText(in: LineTable(document.text), range: arguments.range, encoding: context.positionEncoding)
        // An empty selection with a description is "Save a snippet for this question" after a declined ask: an empty
        // body, named after the question, found by the next ask through its description.
        let description = arguments.description?.trimmingWhitespace().nonEmpty
        let hasText = text.contains(where: { !$0.isWhitespace })
        guard hasText || description != nil else { throw refusal("the selection is empty") }
        let path = try destination(
            settings: context.settings, layers: context.writeLayers,
            environment: context.configuration.environment)
        let scope = SaveSelection.proseLanguages.contains(document.languageID) ? nil : document.languageID
        let request = SaveRequest(text: text, description: description, title: arguments.title, trigger: arguments.trigger, scope: scope)
        try request.checkNames(in: context.library)
        if arguments.preview == true {
            let chosen = request.named(
                in: try? BoundedFileRead.contents(of: path, maximumSize: LibraryLoader.defaultMaximumFileSize), snapshot: context.library)
            let uri = DocumentURI(filePath: path).stringValue
            let result = SaveSelectionResult(
                path: path, id: SnippetID(fileURI: uri, key: chosen.title).rawValue, title: chosen.title, trigger: chosen.trigger,
                isInLibrary: true)
            return (result, nil)
        }
        let chosen = try request.write(to: path, layers: context.writeLayers, snapshot: context.library, writer: writer)
        let reloaded = await context.reloadAndWait()
        let served = Self.served(chosen.title, at: path, in: reloaded.library)
        let id = served?.id ?? SnippetID(fileURI: DocumentURI(filePath: path).stringValue, key: chosen.title)
        var emptyBody: LSPLocation?
        if !hasText, let description {
            emptyBody = bodyLocation(ofEntry: chosen.title, in: path, encoding: context.positionEncoding)
            // Taught: the question is no longer a gap.
            if let problem = GapLog(environment: context.configuration.environment).forget(description) {
                await context.log("\(command): \(problem)")
            }
        }
        return (SaveSelectionResult(path: path, id: id.rawValue, title: chosen.title, trigger: chosen.trigger, isInLibrary: served != nil), emptyBody)
    }

    /// Where the body of the entry `title` is in the `.code-snippets` file at `path`: its first line's text, inside
    /// the quotes, in the client's `encoding`; nil when the file no longer reads so.
    static func bodyLocation(ofEntry title: String, in path: String, encoding: PositionEncoding) -> LSPLocation? {
        guard let bytes = try? BoundedFileRead.contents(of: path, maximumSize: LibraryLoader.defaultMaximumFileSize),
            case .success(let root) = JSONC.parse(bytes), var body = root.member(title)?.value.member("body")?.value
        else { return nil }
        if case .array(let lines) = body.kind, let first = lines.first { body = first }
        guard case .string = body.kind else { return nil }
        let table = LineTable(String(decoding: bytes, as: UTF8.self))
        let range = LSPRange(
            start: table.lspPosition(ofUTF8Offset: body.range.lowerBound + 1, in: encoding),
            end: table.lspPosition(ofUTF8Offset: body.range.upperBound - 1, in: encoding))
        return LSPLocation(uri: DocumentURI(filePath: path).stringValue, range: range)
    }
}

/// One snippet to add, named against the library in service and the target file's fresh bytes: what the editors'
/// save and `snippets-lsp mcp`'s `save_snippet` both write through, with the same refusals.
struct SaveRequest: Sendable {
    /// The body, as literal text.
    var text: String
    /// The description; with an empty `text`, the question a snippet is saved for.
    var description: String?
    /// The title and trigger the user gave (blank counts as not given); derived when absent.
    var title: String?
    var trigger: String?
    /// The language the snippet is for; nil for every language.
    var scope: String?

    init(text: String, description: String? = nil, title: String? = nil, trigger: String? = nil, scope: String? = nil) {
        self.text = text
        self.description = description
        self.title = title?.trimmingWhitespace().nonEmpty
        self.trigger = trigger?.trimmingWhitespace().nonEmpty
        self.scope = scope
    }

    private var hasText: Bool { text.contains(where: { !$0.isWhitespace }) }

    /// Refuses a given trigger with spaces, or one a snippet of the library already uses for this language.
    func checkNames(in snapshot: LibrarySnapshot) throws(ResponseError) {
        guard let trigger else { return }
        if trigger.contains(where: \.isWhitespace) { throw SaveSelection.refusal("a trigger cannot contain spaces") }
        let library = snapshot.library
        if let other = library.snippets.first(where: { $0.triggers.contains(trigger) && library.applies($0, toLanguage: scope) }) {
            throw SaveSelection.refusal("the trigger \"\(trigger)\" is already used by \"\(other.title)\"; choose another")
        }
    }

    /// The entry to add to a file holding `original`: given names as they are, derived ones stepping around what the
    /// file and the library hold.
    func named(in original: [UInt8]?, snapshot: LibrarySnapshot) -> NewSnippet {
        let library = snapshot.library
        let existing = SnippetFileEdit.entries(in: original)
        var chosen = NewSnippet(title: "", trigger: "", text: text, scope: scope, description: description)
        chosen.title = title ?? SaveSelection.unique(SaveSelection.derivedTitle(from: hasText ? text : description ?? ""), separator: " ") {
            existing.titles.contains($0)
        }
        let base =
            hasText || description == nil
            ? SaveSelection.derivedTrigger(from: chosen.title)
            : SaveSelection.derivedTrigger(forQuestion: description ?? "") { snapshot.index?.documentFrequency(of: [$0], language: scope) ?? 0 }
        chosen.trigger = trigger ?? SaveSelection.unique(base) { candidate in
            existing.triggers.contains(candidate)
                || library.snippets.contains { $0.triggers.contains(candidate) && library.applies($0, toLanguage: scope) }
        }
        return chosen
    }

    /// Adds the entry to `path` through `writer` (every byte already there kept; named again from fresh bytes if
    /// the file changed meanwhile) and returns what was written. The one write check is asked right before, of the
    /// file the write changes (`SaveSelection.checkDestination`), and the writer is handed that file.
    func write(to path: String, layers: [LibraryLayer], snapshot: LibrarySnapshot, writer: SnippetFileWriter) throws(ResponseError) -> NewSnippet {
        var chosen = NewSnippet(title: "", trigger: "", text: text)
        let target = try SaveSelection.checkDestination(path, layers: layers)
        do {
            try writer.update(target) { original throws(SnippetFileEditError) in
                chosen = named(in: original, snapshot: snapshot)
                return try SnippetFileEdit.adding(chosen, to: original)
            }
        } catch {
            throw SaveSelection.refusal("\(path): \(error)")
        }
        return chosen
    }
}

extension SnippetFileEdit {
    /// The titles and triggers already in a file's bytes (none when missing or unreadable).
    static func entries(in bytes: [UInt8]?) -> (titles: Set<String>, triggers: Set<String>) {
        guard let bytes, case .success(let root) = JSONC.parse(bytes), let members = root.members else { return ([], []) }
        return (Set(members.map(\.key)), Set(members.flatMap { triggers(of: $0.value) }))
    }
}

extension String {
    /// Nil when empty.
    var nonEmpty: String? { isEmpty ? nil : self }
}
