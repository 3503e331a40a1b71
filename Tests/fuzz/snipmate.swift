// libFuzzer target: the SnipMate reader (Sources/SnippetsCore/Formats/SnipMateReader.swift) and its body conversion.
@testable import SnippetsCore

/// Reads `data` as a `*.snippets` file and as a single-snippet `*.snippet` file.
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
    return 0
}
