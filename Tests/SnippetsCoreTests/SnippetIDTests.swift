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
}
