/// LSP `ShowDocumentParams` (server → client, `window/showDocument`, LSP 3.16): asks the client to open a document
/// (a snippet saved for a declined question, at its empty body) when it declares `window.showDocument.support`.
struct ShowDocumentParams: Encodable, Sendable {
    static let method = "window/showDocument"
    var uri: String
    /// Whether the editor takes the focus to it.
    var takeFocus: Bool?
    /// What to select (or where to put the cursor) in it.
    var selection: LSPRange?
}
