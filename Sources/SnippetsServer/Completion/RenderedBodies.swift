import Foundation
import SnippetsCore

/// Parsed snippet bodies and, for bodies that use no variable, their rendered insert text, per snippet of one
/// `LibrarySnapshot`. Parsing and rendering each shown body on every completion was the largest part of a
/// request's time; a snapshot is immutable and replaced whole on reload, so entries never go stale, and there is
/// at most one entry per snippet in the library.
///
/// A rendering is kept only when the renderer never asked for a variable's value, so cached text is exactly what
/// rendering again would give; bodies with variables (dates, file names) are rendered on each request.
public final class RenderedBodies: @unchecked Sendable {
    private struct Entry {
        var body: SnippetBody
        var snippetText: String?
        var plainText: String?
    }

    private let lock = NSLock()
    private var entries: [SnippetID: Entry] = [:]

    /// An empty cache.
    public init() {}

    /// The insert text of `snippet`: LSP snippet syntax when `snippetSyntax`, else plain text, with variables
    /// resolved through `resolve`.
    public func insertText(of snippet: Snippet, snippetSyntax: Bool, resolving resolve: (String) -> String?) -> String {
        let cached = lock.withLock { entries[snippet.id] }
        if let text = snippetSyntax ? cached?.snippetText : cached?.plainText { return text }
        let body = cached?.body ?? SnippetBody.parse(snippet.body).body
        var usedVariable = false
        let recordingResolve: (String) -> String? = { name in
            usedVariable = true
            return resolve(name)
        }
        let text = snippetSyntax ? body.lspText(resolving: recordingResolve) : body.plainText(resolving: recordingResolve)
        lock.withLock {
            var entry = entries[snippet.id] ?? Entry(body: body)
            if !usedVariable {
                if snippetSyntax { entry.snippetText = text } else { entry.plainText = text }
            }
            entries[snippet.id] = entry
        }
        return text
    }
}
