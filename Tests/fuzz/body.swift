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
    // What the server sends an editor must itself be a body the grammar reads.
    _ = SnippetBody.parse(body.lspText())
    return 0
}
