// libFuzzer target: the yasnippet reader (Sources/SnippetsCore/Formats/Yasnippet/) and its template conversion.
@testable import SnippetsCore

/// Reads `data` as a yasnippet file of `python-mode` and of `prog-mode`, and as a `.yas-parents` file; every
/// converted body must read back as the same tree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzYasnippet(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    for mode in ["python-mode", "prog-mode"] {
        var context = SnippetFileContext(format: .yasnippet, scopes: YasnippetModes.scopes(ofMode: mode))
        context.mode = mode
        let file = YasnippetReader.read(
            text: text, uri: "file:///fuzz/snippets/\(mode)/f", path: "/fuzz/snippets/\(mode)/f", mode: mode,
            filenamesAsTriggers: true, context: context, checkBody: LibraryLoader.grammarBodyChecker)
        for snippet in file.snippets {
            let body = SnippetBody.parse(snippet.body).body
            if SnippetBody.parse(body.lspText()).body != body { fatalError("LSP text does not read back: \(snippet.body)") }
        }
    }
    _ = YasnippetReader.readParents(
        text: text, uri: "file:///fuzz/snippets/c-mode/.yas-parents", path: "/fuzz/snippets/c-mode/.yas-parents",
        mode: "c-mode", context: SnippetFileContext(format: .yasnippet, scopes: ["c"])).extensions.count
    return 0
}
