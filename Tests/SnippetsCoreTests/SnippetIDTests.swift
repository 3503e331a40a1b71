import Testing
@testable import SnippetsCore

@Suite struct SnippetIDTests {
    @Test func identifierDependsOnFileAndKeyOnly() {
        let a = SnippetID(fileURI: "file:///lib/a.json", key: "Invoice footer")
        #expect(a == SnippetID(fileURI: "file:///lib/a.json", key: "Invoice footer"))
        #expect(a != SnippetID(fileURI: "file:///lib/b.json", key: "Invoice footer"))
        #expect(a != SnippetID(fileURI: "file:///lib/a.json", key: "Invoice header"))
        #expect(a.rawValue.count == 17)
    }

    /// Identifiers are stored in learned-words files and sent to clients, so their spelling never changes: "s" and
    /// the FNV-1a 64 hash of the URI, a NUL and the key, as 16 lowercase hexadecimal digits.
    @Test func identifierSpellingIsStable() {
        func written(_ uri: String, _ key: String) -> String {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in Array(uri.utf8) + [0] + Array(key.utf8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            let hex = String(hash, radix: 16)
            return "s" + String(repeating: "0", count: 16 - hex.count) + hex
        }
        for (uri, key) in [("file:///lib/a.json", "Invoice footer"), ("", ""), ("file:///é/ü.snippets", "trig\u{1F}desc\u{1F}2")] {
            #expect(SnippetID(fileURI: uri, key: key).rawValue == written(uri, key))
            #expect(SnippetID(file: SnippetID.FileSeed(fileURI: uri), key: key) == SnippetID(fileURI: uri, key: key))
        }
    }
}
