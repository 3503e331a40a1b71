import Foundation
import SnippetsCore

/// Parsed snippet bodies and their last rendered insert text, per snippet of one `LibrarySnapshot`. Parsing and
/// rendering each shown body on every completion was the largest part of a request's time; a snapshot is
/// immutable and replaced whole on reload, so entries never go stale, and there is at most one entry per snippet.
///
/// A rendering remembers the variables the renderer asked for and the values it got; it is reused only when
/// asking again gives the same values, so the text is exactly what rendering again would give. Bodies without
/// variables are rendered once; `$TM_SELECTED_TEXT` (never known to the server) stays cached; `$RANDOM` or
/// `$TM_LINE_INDEX` are rendered again whenever their value changes.
public final class RenderedBodies: @unchecked Sendable {
    private struct Rendering {
        var insertion: SnippetInsertion
        var variables: [(name: String, value: String?)]
        /// The engine it was rendered for; settings can change it (`choices`, `resolveVariables`).
        var engine: SnippetEngine
    }

    private struct Entry {
        var body: SnippetBody
        var rendering: Rendering?
        /// `preview(of:)`, once made.
        var preview: String?
    }

    private let lock = NSLock()
    private var entries: [SnippetID: Entry] = [:]

    /// An empty cache.
    public init() {}

    /// What to insert for `snippet` in a client with `engine` (plain text when it takes no snippets, or when an engine
    /// that may run code would run part of it), with variables resolved through `resolve`.
    public func insertion(of snippet: Snippet, engine: SnippetEngine, resolving resolve: (String) -> String?)
        -> SnippetInsertion
    {
        let cached = lock.withLock { entries[snippet.id] }
        if let rendering = cached?.rendering, rendering.engine == engine,
            rendering.variables.allSatisfy({ resolve($0.name) == $0.value })
        {
            return rendering.insertion
        }
        let body = cached?.body ?? SnippetBody.parse(snippet.body).body
        var variables: [(name: String, value: String?)] = []
        let recordingResolve: (String) -> String? = { name in
            let value = resolve(name)
            variables.append((name, value))
            return value
        }
        let insertion = body.insertion(for: engine, resolving: recordingResolve)
        let rendering = Rendering(insertion: insertion, variables: variables, engine: engine)
        lock.withLock {
            var entry = entries[snippet.id] ?? Entry(body: body)
            entry.rendering = rendering
            entries[snippet.id] = entry
        }
        return insertion
    }

    /// The start of `snippet`'s body as plain text (placeholders by their text, no variable resolved), at most
    /// `lines` lines and `characters` characters, `…` marking a cut: what an item carries up front as a preview.
    public func preview(of snippet: Snippet, lines: Int, characters: Int) -> String {
        let cached = lock.withLock { entries[snippet.id] }
        if let preview = cached?.preview { return preview }
        let body = cached?.body ?? SnippetBody.parse(snippet.body).body
        let text = body.plainText(resolving: { _ in nil })
        var kept = text.split(separator: "\n", maxSplits: lines, omittingEmptySubsequences: false).prefix(lines)
            .joined(separator: "\n")
        if kept.count > characters { kept = String(kept.prefix(characters)) }
        let preview = kept.count < text.count ? kept + "…" : kept
        lock.withLock {
            var entry = entries[snippet.id] ?? Entry(body: body)
            entry.preview = preview
            entries[snippet.id] = entry
        }
        return preview
    }

    /// The text of `insertion(of:engine:resolving:)`.
    public func insertText(of snippet: Snippet, engine: SnippetEngine, resolving resolve: (String) -> String?) -> String {
        insertion(of: snippet, engine: engine, resolving: resolve).text
    }
}
