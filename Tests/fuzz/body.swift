// libFuzzer target: the snippet body grammar and its renderers (Sources/SnippetsCore/Body).
import SnippetsCore

/// Parses `data` as a snippet body and renders it every way the server does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBody(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let parsed = SnippetBody.parse(text)
    let body = parsed.body
    _ = body.lspText()
    _ = body.plainText()
    _ = body.lspText(resolving: { $0 == "TM_FILENAME" ? "a$b}c.swift" : nil })
    _ = body.plainText(resolving: { _ in "x" })
    _ = body.hasSnippetSyntax
    // Every editor's rendering and what it loses (Body/SnippetClientRendering.swift).
    for engine in [SnippetEngine.neovim, .vscode, .helix, .yasnippet, .zed, .generic, .plain] {
        let insertion = body.insertion(for: engine, resolving: { $0 == "TM_FILENAME" ? "a$b}c.swift" : nil })
        _ = body.losses(in: engine)
        // Nothing yasnippet would run reaches an engine that may be yasnippet as snippet text, and for yasnippet
        // itself escaping always suffices (the server resolves its variables, so nothing is left as written).
        if engine.guardsAgainstCode, insertion.isSnippet, YasnippetReading.wouldEvaluate(insertion.text) {
            fatalError("yasnippet would run code in \(insertion.text.debugDescription) from \(text.debugDescription)")
        }
        if engine.evaluatesCode, !insertion.isSnippet {
            fatalError("yasnippet got plain text for \(text.debugDescription)")
        }
    }
    // What the server sends an editor reads back as the same tree and the same text (BodyParserTests' invariant):
    // otherwise an editor would insert something other than what the library holds.
    let serialized = body.lspText()
    let reparsed = SnippetBody.parse(serialized).body
    if reparsed != body || reparsed.lspText() != serialized {
        fatalError("unstable round trip: \(text.debugDescription) -> \(serialized.debugDescription)")
    }
    // A library load checks bodies without keeping their text; it must find exactly the same problems.
    if SnippetBody.problems(in: text) != parsed.problems {
        fatalError("problems(in:) differs from parse: \(text.debugDescription)")
    }
    let length = text.utf16.count
    if !parsed.problems.allSatisfy({ $0.utf16Offset >= 0 && $0.utf16Offset <= length }) {
        fatalError("a problem outside the body: \(text.debugDescription)")
    }
    return 0
}
