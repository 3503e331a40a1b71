import Foundation
import SnippetsCore

/// Turns a cursor in a document into a completion list: finds the typed prefix, searches the index, and builds
/// items whose edits replace exactly what was typed. Pure apart from the clock and random variables.
public struct CompletionBuilder: Sendable {
    /// The document being edited.
    public var document: TextDocument
    /// The library in service.
    public var library: LibrarySnapshot
    /// The negotiated position encoding.
    public var encoding: PositionEncoding
    /// What the client can do.
    public var client: ClientCapabilities
    /// The user's settings.
    public var settings: ServerSettings
    /// Workspace folder paths, for `WORKSPACE_NAME` and `RELATIVE_FILEPATH`.
    public var workspaceFolders: [String]
    /// The moment of the completion, for date variables.
    public var now: Date

    public init(
        document: TextDocument, library: LibrarySnapshot, encoding: PositionEncoding, client: ClientCapabilities,
        settings: ServerSettings, workspaceFolders: [String] = [], now: Date = Date()
    ) {
        self.document = document
        self.library = library
        self.encoding = encoding
        self.client = client
        self.settings = settings
        self.workspaceFolders = workspaceFolders
        self.now = now
    }

    /// How snippets are rendered for this client under these settings (see `SnippetRenderPlan`).
    public var renderPlan: SnippetRenderPlan {
        SnippetRenderPlan(engine: client.snippetEngine, settings: settings)
    }

    /// Whether the server fills in variables: `auto` does unless the client resolves them itself (VS Code does;
    /// Helix and Zed resolve none and Neovim only some, so the server resolves them for every other client).
    public var resolvesVariables: Bool { renderPlan.serverResolvesVariables }


    /// A variable context made on first use.
    private final class LazyVariables {
        private let resolves: Bool
        private var make: (() -> SnippetVariableContext)?
        private var context: SnippetVariableContext?

        init(resolves: Bool, make: @escaping () -> SnippetVariableContext) {
            self.resolves = resolves
            self.make = make
        }

        func value(of name: String) -> String? {
            guard resolves else { return nil }
            if context == nil, let make {
                context = make()
                self.make = nil
            }
            return context?.value(of: name)
        }
    }

    /// What the client accepts in an item.
    private struct ItemStyle {
        /// What the client's snippet engine does itself (plain text when it takes no snippets).
        var engine: SnippetEngine
        /// `InsertReplaceEdit` (else `TextEdit`).
        var insertReplace: Bool
        /// `labelDetails` (VS Code shows its `description` in the row).
        var labelDetails: Bool
        /// Whether the library has several layers, so `detail` names the layer too (Neovim shows `detail` in the
        /// menu, Helix and Emacs beside the documentation).
        var layerInDetail: Bool
        /// The client shows an item's filter text in the buffer as if typed (Neovim's built-in completion).
        var filterTextShowsAsTyped: Bool = false
        /// The client takes `insertTextMode` 2 (adjustIndentation).
        var adjustsIndentation: Bool = false
        /// The client takes `insertTextMode` 1 (asIs). lsp-mode without a mode re-indents the inserted lines with
        /// the major mode's `indent-line-function` (in markdown-mode that hangs Emacs), so a one-line body, which
        /// needs no indenting, is sent as is.
        var takesAsIs: Bool = false
        /// The client does not resolve documentation, so items carry a preview up front.
        var documentsUpFront: Bool = false
        /// The client takes one start column per list (`KnownClient.takesOneStartColumn`).
        var takesOneStartColumn: Bool = false
    }

    /// A found snippet and the typed run its edit replaces.
    private struct Candidate {
        var hit: SearchHit
        var run: TypedPrefix.Run
    }

    /// The completion list at `position`.
    ///
    /// Where the library has triggers of several words, the runs of several words before the cursor are tried
    /// first, most words first, for trigger matches only (`if e` offers `if else`, its edit covering both words).
    /// The long form of the prefix (all non-whitespace before the cursor, e.g. `///`) is tried for trigger matches
    /// only, next; then the trailing word for every kind of match (a stop word for trigger matches only); then
    /// snippets offered inside a word whose whole trigger ends the typed text. Trigger matches come first. One item
    /// per snippet (not one per trigger), labelled with its best-matching trigger, or its title when it has none.
    public func completions(at position: Position) -> CompletionList {
        // No index: the library is still loading. Incomplete, so the client asks again rather than keep "nothing".
        guard let index = library.index else { return CompletionList(isIncomplete: true, items: []) }
        let table = document.lines
        let cursor = table.utf8Offset(of: position, in: encoding)
        let prefix = TypedPrefix(at: cursor, in: table)
        let limit = settings.maxCompletionItems
        let language = document.languageID

        var candidates: [Candidate] = []
        var seen: Set<SnippetID> = []
        var isIncomplete = false
        // Whether the run starts its line (after indentation), for snippets offered only there (UltiSnips' `b`).
        func startsLine(_ run: TypedPrefix.Run) -> Bool {
            let lineStart = table.lineStarts[table.line(containingUTF8Offset: run.utf8Range.lowerBound)]
            return table.slice(lineStart..<run.utf8Range.lowerBound).allSatisfy { $0 == " " || $0 == "\t" }
        }
        func add(_ results: SearchResults, run: TypedPrefix.Run, onlyTriggers: Bool) {
            if results.isIncomplete && !onlyTriggers { isIncomplete = true }
            for hit in results.hits where !onlyTriggers || hit.match <= .triggerPrefix {
                if library.library.snippet(withID: hit.snippetID)?.isLineStartOnly == true, !startsLine(run) { continue }
                if seen.insert(hit.snippetID).inserted { candidates.append(Candidate(hit: hit, run: run)) }
            }
        }
        for run in prefix.multiWordRuns(upTo: index.maximumTriggerWords) {
            // Only a trigger spanning the typed words counts: `if e` is no search for the words "if" and "e".
            let results = index.triggerMatches(run.text, language: language, limit: limit + 1)
            add(results, run: run, onlyTriggers: true)
            if results.totalMatches > limit { isIncomplete = true }
        }
        if let long = prefix.longRun, long.text != prefix.wordRun?.text {
            // Only trigger matches count for the long form: `foo.` or `)!` should not pop up body matches.
            let results = index.search(long.text, language: language, limit: limit + 1)
            add(results, run: long, onlyTriggers: true)
            if results.hits.filter({ $0.match <= .triggerPrefix }).count > limit { isIncomplete = true }
        }
        if let word = prefix.wordRun {
            // A stop word ("how", "the") is what prose is made of: typing one offers the snippets it is a trigger
            // (or the start of one) of, never every snippet whose title or description holds it, which would pop
            // up a menu at every sentence (a question saved from a declined ask is titled "how do I …").
            let isStopWord = Lexicon.stopWords.contains(word.text.lowercased())
            let results = index.search(word.text, language: language, limit: limit + 1)
            add(results, run: word, onlyTriggers: isStopWord)
            if isStopWord && results.hits.filter({ $0.match <= .triggerPrefix }).count > limit { isIncomplete = true }
        }
        // A snippet offered inside a word (UltiSnips' `i`): its whole trigger ends the typed text (`xsr` offers
        // `sr`), and its edit replaces the trigger's characters only.
        for match in index.inWordMatches(endingWith: prefix.lineBeforeCursor, language: language) {
            let run = TypedPrefix.Run(text: match.trigger, utf8Range: cursor - match.trigger.utf8.count..<cursor)
            add(SearchResults(hits: [match.hit], totalMatches: 1), run: run, onlyTriggers: true)
        }
        // The next letter typed in this word may complete such a trigger (`xs` to `xsr`), which a client filtering
        // this list itself would never ask about.
        if prefix.wordRun != nil, index.hasInWordTriggers(language: language) { isIncomplete = true }
        // Trigger matches before title and body ones, as each search ranks them: the in-word ones join them.
        candidates = candidates.filter { $0.hit.match <= .triggerPrefix } + candidates.filter { $0.hit.match > .triggerPrefix }
        if candidates.count > limit {
            candidates.removeLast(candidates.count - limit)
            isIncomplete = true
        }

        // The variable context (a URL parse, a line copy) is built only once a body asks for a variable; the
        // closure holds just that box, not a copy of this builder.
        let plan = renderPlan
        let variables = LazyVariables(resolves: plan.serverResolvesVariables) { [self] in
            variableResolver(table: table, cursor: cursor)
        }
        let resolve: (String) -> String? = { name in variables.value(of: name) }
        // Read once per request: each is a walk through the client's raw capabilities.
        let style = ItemStyle(
            engine: plan.engine, insertReplace: client.supportsInsertReplace,
            labelDetails: client.supportsLabelDetails, layerInDetail: library.library.layers.count > 1,
            filterTextShowsAsTyped: client.knownClient?.showsFilterTextAsTyped ?? false,
            adjustsIndentation: client.supportsInsertTextMode(.adjustIndentation), takesAsIs: client.supportsInsertTextMode(.asIs),
            documentsUpFront: !client.resolvesDocumentation, takesOneStartColumn: client.knownClient?.takesOneStartColumn ?? false)
        // Every item of a run edits the same range: convert its offsets to positions once, not once per item.
        var rangesByRun: [Range<Int>: EditRanges] = [:]
        var items: [CompletionItem] = []
        items.reserveCapacity(candidates.count)
        var documentationLeft = Self.upFrontDocumentationBudget
        for (rank, candidate) in candidates.enumerated() {
            guard let snippet = library.library.snippet(withID: candidate.hit.snippetID) else { continue }
            let run = candidate.run
            let ranges = rangesByRun[run.utf8Range] ?? editRanges(for: run, prefix: prefix, table: table, style: style)
            rangesByRun[run.utf8Range] = ranges
            var made = item(for: snippet, rank: rank, run: run, ranges: ranges, style: style, resolve: resolve)
            if style.takesOneStartColumn, let word = prefix.wordRun, run.utf8Range != word.utf8Range {
                let wordRanges = rangesByRun[word.utf8Range] ?? editRanges(for: word, prefix: prefix, table: table, style: style)
                rangesByRun[word.utf8Range] = wordRanges
                made = Self.editingTheWord(made, run: run, word: word, wordRanges: wordRanges, table: table, encoding: encoding)
            }
            // A body that follows its trigger's case changes with the next letter typed (`:` to `:S` to `:Si`), which
            // a client filtering this list itself would not ask about.
            if snippet.triggerCasing != nil, run.text.filter(\.isLetter).count < 2 { isIncomplete = true }
            if style.documentsUpFront, documentationLeft > 0 {
                let documentation = previewDocumentation(for: snippet, language: language)
                let size = documentation.value.utf8.count
                if size <= documentationLeft {
                    made.documentation = documentation
                    documentationLeft -= size
                } else {
                    documentationLeft = 0
                }
            }
            items.append(made)
        }
        // From one language's files, read before the whole library: the client asks again, and meets the library.
        if library.language != nil { isIncomplete = true }
        return CompletionList(isIncomplete: isIncomplete, items: items)
    }

    /// The most lines and characters of a body an item carries up front.
    static let previewLines = 12
    static let previewCharacters = 600
    /// The most bytes of documentation one completion reply carries up front: the first items (those the menu
    /// shows) get theirs, later ones none (they can still be resolved).
    static let upFrontDocumentationBudget = 16 * 1024

    /// The documentation an item carries up front to a client that does not resolve it (Neovim's built-in
    /// completion fills its info popup from the item as sent): the start of the body (`previewLines`,
    /// `previewCharacters`), the description, where it is defined; `completionItem/resolve` gives the whole body.
    func previewDocumentation(for snippet: Snippet, language: String?) -> MarkupContent {
        let preview = library.renderedBodies.preview(of: snippet, lines: Self.previewLines, characters: Self.previewCharacters)
        var parts = [SnippetMarkdown.fencedCodeBlock(preview, language: language)]
        if let description = snippet.description, !description.isEmpty { parts.append(description) }
        parts.append("`\(snippet.location.pathAndLine)`")
        return .markdown(parts.joined(separator: "\n\n"))
    }

    private func variableResolver(table: LineTable, cursor: Int) -> SnippetVariableContext {
        let position = table.position(ofUTF8Offset: cursor)
        return SnippetVariableContext(
            filePath: DocumentURI(document.uri).filePath,
            workspaceFolders: workspaceFolders, lineText: String(table.content(ofLine: position.line)),
            lineIndex: position.line, cursorUTF16Column: position.utf16Column, languageID: document.languageID,
            date: now)
    }

    /// The trigger to show for `snippet` when `typed` was typed: an exact match, else one that starts with it,
    /// else the first; nil when the snippet has no trigger.
    public static func bestTrigger(of snippet: Snippet, typed: String) -> String? {
        let lowered = typed.lowercased()
        return snippet.triggers.first { $0 == typed }
            ?? snippet.triggers.first { $0.lowercased() == lowered }
            ?? snippet.triggers.first { $0.hasPrefix(typed) }
            ?? snippet.triggers.first { $0.lowercased().hasPrefix(lowered) }
            ?? snippet.triggers.first
    }

    /// `item`, made for `run`, as an edit of the typed `word` instead, for a client that takes one start column per
    /// list (Neovim): a run of several words (`if e` of `if else`, or `foo.ba` of `foo.bar`) replaces the word, the
    /// typed text before it goes in an additional edit, and the filter text is the rest of the label from the word
    /// on (Neovim shows it in the buffer while the item is selected: `if else` again); a run inside the word (`sr` of
    /// `xsr`) replaces the whole word, its inserted text starting with the word's part before the run, filtered by
    /// the word as typed. Unchanged where the label does not start with the typed text before the word.
    private static func editingTheWord(
        _ item: CompletionItem, run: TypedPrefix.Run, word: TypedPrefix.Run, wordRanges: EditRanges, table: LineTable,
        encoding: PositionEncoding
    ) -> CompletionItem {
        guard run.utf8Range.upperBound == word.utf8Range.upperBound, let edit = item.textEdit else { return item }
        var changed = item
        let newText: String
        switch edit {
        case .textEdit(let edit): newText = edit.newText
        case .insertReplace(let edit): newText = edit.newText
        }
        if run.utf8Range.lowerBound < word.utf8Range.lowerBound {
            let before = String(table.slice(run.utf8Range.lowerBound..<word.utf8Range.lowerBound))
            guard item.label.lowercased().hasPrefix(before.lowercased()) else { return item }
            let start = table.lspPosition(ofUTF8Offset: run.utf8Range.lowerBound, in: encoding)
            changed.additionalTextEdits = [TextEdit(range: LSPRange(start: start, end: wordRanges.insert.start), newText: "")]
            changed.filterText = String(item.label.dropFirst(before.count))
            changed.textEdit = wordRanges.edit(newText: newText)
        } else {
            let kept = String(table.slice(word.utf8Range.lowerBound..<run.utf8Range.lowerBound))
            let isSnippet = item.insertTextFormat == .snippet
            changed.filterText = word.text
            changed.textEdit = wordRanges.edit(newText: (isSnippet ? SnippetBody.escaped(kept) : kept) + newText)
        }
        return changed
    }

    /// How `snippet`'s body is cased for `typed`, where the snippet follows its trigger's case and `typed` is the
    /// start of `trigger` in some case; nil where it is inserted as written.
    static func casing(of snippet: Snippet, trigger: String, typed: String) -> TextCasing? {
        guard let triggerCasing = snippet.triggerCasing, trigger.lowercased().hasPrefix(typed.lowercased()) else { return nil }
        return triggerCasing.casing(forTyped: typed)
    }

    /// The ranges an item's edit replaces for a typed run.
    private struct EditRanges {
        /// From the run's start to the cursor.
        var insert: LSPRange
        /// From the run's start to the end of the word after the cursor; nil unless the client takes it.
        var replace: LSPRange?

        /// The edit inserting `newText` over these ranges.
        func edit(newText: String) -> CompletionTextEdit {
            if let replace { return .insertReplace(InsertReplaceEdit(newText: newText, insert: insert, replace: replace)) }
            return .textEdit(TextEdit(range: insert, newText: newText))
        }
    }

    private func editRanges(for run: TypedPrefix.Run, prefix: TypedPrefix, table: LineTable, style: ItemStyle) -> EditRanges {
        let start = table.lspPosition(ofUTF8Offset: run.utf8Range.lowerBound, in: encoding)
        let cursor = table.lspPosition(ofUTF8Offset: run.utf8Range.upperBound, in: encoding)
        guard style.insertReplace else { return EditRanges(insert: LSPRange(start: start, end: cursor)) }
        let replaceEnd = table.lspPosition(ofUTF8Offset: prefix.wordEndAfterCursor, in: encoding)
        return EditRanges(insert: LSPRange(start: start, end: cursor), replace: LSPRange(start: start, end: replaceEnd))
    }

    private func item(
        for snippet: Snippet, rank: Int, run: TypedPrefix.Run, ranges: EditRanges, style: ItemStyle,
        resolve: (String) -> String?
    ) -> CompletionItem {
        let trigger = Self.bestTrigger(of: snippet, typed: run.text)
        var label = trigger ?? snippet.title
        let insertion: SnippetInsertion
        if let trigger, let casing = Self.casing(of: snippet, trigger: trigger, typed: run.text) {
            // Cased as typed (espanso's `propagate_case`): the label too, so a client filtering by case keeps it.
            label = casing == .uppercase ? trigger.uppercased() : run.text + trigger.dropFirst(run.text.count)
            insertion = SnippetBody.parse(snippet.body).body.cased(casing).insertion(for: style.engine, resolving: resolve)
        } else {
            insertion = library.renderedBodies.insertion(of: snippet, engine: style.engine, resolving: resolve)
        }
        let newText = insertion.text
        let edit = ranges.edit(newText: newText)
        // Clients filter items against the typed text; an item found through its title or body would be dropped
        // unless its filter text starts with what was typed.
        // Neovim's built-in completion inserts the filter text as the item's word while the user moves through the
        // menu, so it gets none: it keeps every item the server sends, and the label is what shows as typed.
        let labelMatches = label.lowercased().hasPrefix(run.text.lowercased())
        let filterText: String? =
            labelMatches ? label : style.filterTextShowsAsTyped ? nil : run.text + " " + label
        var detail = trigger == nil ? snippet.description : snippet.title
        if style.layerInDetail, !snippet.layer.isEmpty {
            detail = detail.map { "\($0) (\(snippet.layer))" } ?? "(\(snippet.layer))"
        }
        return CompletionItem(
            label: label,
            labelDetails: style.labelDetails && !snippet.layer.isEmpty ? CompletionItemLabelDetails(description: snippet.layer) : nil,
            detail: detail,
            sortText: Self.sortText(rank: rank),
            filterText: filterText,
            insertTextFormat: insertion.isSnippet ? .snippet : .plainText,
            insertTextMode: Self.insertTextMode(multiLine: newText.contains("\n"), style: style),
            textEdit: edit,
            data: CompletionItemData(snippetID: snippet.id.rawValue, uri: document.uri))
    }

    /// `adjustIndentation` for a body of several lines (its later lines take the first one's indentation), `asIs`
    /// for one line; nil where the client does not list the mode.
    private static func insertTextMode(multiLine: Bool, style: ItemStyle) -> InsertTextMode? {
        if multiLine { return style.adjustsIndentation ? .adjustIndentation : nil }
        return style.takesAsIs ? .asIs : nil
    }

    /// The rank as five digits (`00042`), so clients keep the server's order; `String(format:)` without Foundation's
    /// cost.
    static func sortText(rank: Int) -> String {
        let digits = String(rank)
        return digits.count >= 5 ? digits : String(repeating: "0", count: 5 - digits.count) + digits
    }

    /// Markdown documentation for `snippet`: the rendered body, the description, and where it is defined.
    public static func documentation(for snippet: Snippet, language: String?) -> MarkupContent {
        var parts = [SnippetBody.parse(snippet.body).body.markdownPreview(language: language)]
        if let description = snippet.description, !description.isEmpty { parts.append(description) }
        parts.append("`\(snippet.location.pathAndLine)`")
        return .markdown(parts.joined(separator: "\n\n"))
    }
}
