import Testing

@testable import SnippetsCore

@Suite struct SnippetLibraryTests {
    /// A library large enough to be flattened in parallel chunks holds every snippet once, in file order, and
    /// finds each identifier at its first snippet, as a plain sequential flattening does.
    @Test func aLargeLibraryKeepsFileOrderAndFirstIdentifiers() {
        var files: [SnippetFile] = []
        for fileNumber in 0..<37 {
            let uri = "file:///lib/f\(fileNumber).code-snippets"
            let snippets = (0..<(fileNumber * 29 + 11)).map { number in
                // Every 50th snippet repeats the first file's first identifier: the first one must win.
                let key = number % 50 == 49 ? "shared" : "s\(number)"
                let idFile = number % 50 == 49 ? "file:///lib/f0.code-snippets" : uri
                return Snippet(
                    id: SnippetID(fileURI: idFile, key: key), title: "\(fileNumber)/\(number)", triggers: ["t\(number)"],
                    description: nil, body: "body \(number)", scopes: [],
                    location: SourceLocation(uri: uri, range: SourceRange(start: .init(line: number, asciiColumn: 0), end: .init(line: number, asciiColumn: 1))),
                    format: .vscode)
            }
            files.append(SnippetFile(uri: uri, path: "/lib/f\(fileNumber).code-snippets", format: .vscode, snippets: snippets))
        }
        let expected = files.flatMap(\.snippets)
        #expect(expected.count > 16_384, "large enough for the parallel path")
        let library = SnippetLibrary(files: files)
        #expect(library.snippets == expected)
        var first: [SnippetID: Int] = [:]
        for (position, snippet) in expected.enumerated() where first[snippet.id] == nil { first[snippet.id] = position }
        for (id, position) in first {
            #expect(library.index(of: id) == position)
        }
        #expect(library.snippet(withID: SnippetID(fileURI: "file:///lib/f0.code-snippets", key: "shared"))?.title == "2/49", "file 2 is the first with 50 snippets")
    }
}
