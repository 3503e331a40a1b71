// libFuzzer target: the SnipMate reader (Sources/SnippetsCore/Formats/SnipMateReader.swift) and the UltiSnips reader
// (Sources/SnippetsCore/Formats/UltiSnips/), with their body conversions.
@testable import SnippetsCore

/// Reads `data` as a SnipMate `*.snippets` file, as a single-snippet `*.snippet` file and as an UltiSnips file; every
/// converted UltiSnips body must read back as the same tree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnipMate(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let contexts = [
        SnippetFileContext(format: .snipmate, scopes: ["python"]),
        SnippetFileContext(format: .snipmate, scopes: [], pathSnippet: .init(trigger: "t", description: "d")),
    ]
    for context in contexts {
        let output = SnipMateReader.read(
            text: text, uri: "file:///fuzz/python.snippets", path: "/fuzz/python.snippets", context: context,
            checkBody: LibraryLoader.grammarBodyChecker)
        _ = output.file.snippets.count + output.overrides.count
    }
    let ultisnips = UltiSnipsReader.read(
        text: text, uri: "file:///fuzz/UltiSnips/python.snippets", path: "/fuzz/UltiSnips/python.snippets",
        context: SnippetFileContext(format: .ultisnips, scopes: ["python"]), checkBody: LibraryLoader.grammarBodyChecker)
    for snippet in ultisnips.file.snippets {
        let body = SnippetBody.parse(snippet.body).body
        if SnippetBody.parse(body.lspText()).body != body { fatalError("an UltiSnips body does not read back: \(snippet.body)") }
    }
    return 0
}
