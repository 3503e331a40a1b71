// libFuzzer target: the JSONC reader and the VS Code snippet reader on top of it (Sources/SnippetsCore/Formats).
import Foundation
@testable import SnippetsCore

/// Parses `data` as JSONC, then reads it as a VS Code snippet file with the body grammar checking every body.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONC(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    let parsed = JSONC.parse(bytes)
    switch parsed {
    case .success(let value):
        if value.range.lowerBound < 0 || value.range.upperBound > bytes.count { fatalError("value range outside the input") }
        _ = value.typeDescription
    case .failure(let error):
        if error.offset < 0 || error.offset > bytes.count { fatalError("error offset outside the input") }
        // JSONC is a superset of JSON: what Foundation reads as an object (no comments, no trailing commas),
        // JSONC must read too.
        if bytes.first == UInt8(ascii: "{"),
            (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] != nil
        {
            fatalError("JSON that Foundation reads was refused: \(error.message) at \(error.offset)")
        }
    }
    // The tolerant reading: every error inside the input, in source order, at most the limit and one more.
    let reading = JSONC.read(bytes)
    if let value = reading.value, value.range.lowerBound < 0 || value.range.upperBound > bytes.count {
        fatalError("recovered value range outside the input")
    }
    if reading.errors.contains(where: { $0.offset < 0 || $0.offset > bytes.count }) { fatalError("error offset outside the input") }
    if reading.errors.count > JSONC.maximumErrors + 1 { fatalError("more errors listed than the limit") }
    if reading.value == nil && reading.errors.isEmpty { fatalError("no value and no error") }
    let text = String(decoding: bytes, as: UTF8.self)
    for scopes in [["go"], nil] as [[String]?] {
        let file = VSCodeSnippetReader.read(
            bytes: bytes, text: text, uri: "file:///fuzz/f.code-snippets", path: "/fuzz/f.code-snippets",
            context: SnippetFileContext(format: .vscode, scopes: scopes), checkBody: LibraryLoader.grammarBodyChecker)
        _ = file.snippets.count
    }
    return 0
}
