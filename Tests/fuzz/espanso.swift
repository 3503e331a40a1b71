// libFuzzer target: the YAML reader and the espanso reader on top of it (Sources/SnippetsCore/Formats/YAML, Espanso).
import Foundation
@testable import SnippetsCore

/// Parses `data` as YAML (every range inside the input), then loads it as an espanso match file (beside an import
/// target, so `imports` are followed) with the body grammar checking every body: every body must read back as the
/// same tree with no problem, and every diagnostic must lie in a file of the folder.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEspanso(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    func check(_ node: YAMLNode) {
        if node.range.lowerBound < 0 || node.range.upperBound > bytes.count { fatalError("node range outside the input") }
        for item in node.items ?? [] { check(item) }
        for member in node.members ?? [] {
            check(member.key)
            check(member.value)
        }
    }
    switch YAML.parse(bytes) {
    case .success(let root?): check(root)
    case .success(nil): break
    case .failure(let error):
        if error.offset < 0 || error.offset > bytes.count { fatalError("error offset outside the input") }
    }
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
    let files = ["/esp/match/base.yml": text, "/esp/match/_shared.yml": "global_vars:\n  - {name: a, type: echo, params: {echo: x}}\n"]
    let library = LibraryLoader(fileSystem: InMemoryFileSystem(files: files)).load(paths: ["/esp"])
    // The reader writes LSP syntax itself, escaping every `$`, `}` and `\\` of the text: a body it makes has no
    // problem for the grammar, and reads back as the same tree.
    for snippet in library.snippets {
        let parsed = SnippetBody.parse(snippet.body)
        if !parsed.problems.isEmpty { fatalError("a body with problems: \(snippet.body.debugDescription) from \(text.debugDescription)") }
        if SnippetBody.parse(parsed.body.lspText()).body != parsed.body { fatalError("a body does not read back: \(snippet.body)") }
    }
    for diagnostic in library.diagnostics where !diagnostic.uri.hasPrefix("file:///esp/") {
        fatalError("a diagnostic outside the folder: \(diagnostic.uri)")
    }
    return 0
}
