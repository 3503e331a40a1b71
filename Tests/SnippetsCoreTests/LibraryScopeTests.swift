import Testing
@testable import SnippetsCore

@Suite struct LibraryScopeTests {
    private func snippet(_ title: String, scopes: [String]) -> Snippet {
        let uri = "file:///lib/\(title).json"
        let position = SourcePosition(line: 0, asciiColumn: 0)
        return Snippet(
            id: SnippetID(fileURI: uri, key: title), title: title, triggers: [title], body: title, scopes: scopes,
            location: SourceLocation(uri: uri, range: SourceRange(start: position, end: position)), format: .vscode)
    }

    @Test func universalScopesApplyInEveryLanguage() {
        let library = SnippetLibrary(files: [
            SnippetFile(
                uri: "file:///lib/x.json", path: "/lib/x.json", format: .vscode,
                snippets: [
                    snippet("everywhere", scopes: ["plaintext", "all"]),
                    snippet("friendly", scopes: ["global"]),
                    snippet("python", scopes: ["python"]),
                ])
        ])
        let inSwift = library.snippets.filter { library.applies($0, toLanguage: "swift") }.map(\.title)
        #expect(inSwift == ["everywhere", "friendly"])
        let index = TokenIndex(library: library)
        #expect(index.search("everywhere", language: "rust").hits.count == 1)
        #expect(index.search("python", language: "rust").hits.isEmpty)
    }
}
