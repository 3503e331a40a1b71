import Testing
@testable import SnippetsCore

/// Loads `files` (absolute path → text) from memory through `LibraryLoader`, the way every format test does.
func loadLibrary(
    _ files: [String: String], paths: [String] = ["/lib"], workspaceRoots: [String] = [],
    links: [String: String] = [:], unreadable: Set<String> = [], maximumFileSize: Int = LibraryLoader.defaultMaximumFileSize
) -> SnippetLibrary {
    let fileSystem = InMemoryFileSystem(files: files, links: links, unreadable: unreadable)
    return LibraryLoader(fileSystem: fileSystem, maximumFileSize: maximumFileSize)
        .load(paths: paths, workspaceRoots: workspaceRoots)
}

/// The text a snippet's location covers, read back from the file's text.
func locatedText(_ snippet: Snippet, in text: String) -> Substring {
    let table = LineTable(text)
    let start = table.utf8Offset(line: snippet.location.range.start.line, column: snippet.location.range.start.utf16Column, in: .utf16)
    let end = table.utf8Offset(line: snippet.location.range.end.line, column: snippet.location.range.end.utf16Column, in: .utf16)
    return table.slice(start..<end)
}

/// Diagnostics as `line:column code` strings (1-based, UTF-16 columns), easy to compare.
func summaries(_ diagnostics: [LibraryDiagnostic]) -> [String] {
    diagnostics.map { "\($0.position.line + 1):\($0.position.utf16Column + 1) \($0.severity.rawValue) \($0.code)" }
}

@Suite struct FormatsVSCodeTests {
    static let goJSON = """
        {
          // Comments and trailing commas are fine: VS Code reads JSONC.
          "For loop": {
            "prefix": ["for", "fori"],
            "body": ["for ${1:i} := 0; $1 < ${2:n}; $1++ {", "\\t$0", "}"],
            "description": ["Classic", "for loop"],
            "scope": "ignored-in-a-language-file",
          },
          "No trigger": { "body": "panic(${1:err})" },
          "Null trigger": { "prefix": null, "body": "x" },
          "Errors": {
            "Wrap": { "prefix": "wrap", "body": "fmt.Errorf(\\"%w\\", ${1:err})" },
            "New": { "prefix": "errnew", "body": "errors.New(\\"${1}\\")" }
          },
          "Template": { "body": "package ${TM_FILENAME_BASE}", "isFileTemplate": true },
        }
        """

    @Test func readsVSCodeFieldsScopesGroupsAndTitles() throws {
        let library = loadLibrary(["/lib/go.json": Self.goJSON])
        #expect(library.diagnostics.isEmpty, "\(library.diagnostics)")
        #expect(library.snippets.map(\.title) == ["For loop", "No trigger", "Null trigger", "Wrap", "New", "Template"])
        let loop = library.snippets[0]
        #expect(loop.triggers == ["for", "fori"])
        #expect(loop.body == "for ${1:i} := 0; $1 < ${2:n}; $1++ {\n\t$0\n}")
        #expect(loop.description == "Classic\nfor loop")
        #expect(loop.scopes == ["go"])  // a language file's own language wins over "scope", as in VS Code
        #expect(loop.format == .vscode)
        #expect(library.snippets[1].triggers.isEmpty)
        #expect(library.snippets[2].triggers.isEmpty)
        #expect(library.snippets[3].triggers == ["wrap"])
        #expect(library.snippets[3].body == "fmt.Errorf(\"%w\", ${1:err})")
        #expect(library.snippets[5].isFileTemplate)
        #expect(!loop.isFileTemplate)
        let uri = "file:///lib/go.json"
        #expect(loop.location.uri == uri)
        #expect(loop.id == SnippetID(fileURI: uri, key: "For loop"))
        #expect(library.snippets[3].id == SnippetID(fileURI: uri, key: "Errors/Wrap"))
    }

    @Test func locationRunsFromTheKeysQuoteToTheEndOfItsObject() throws {
        let library = loadLibrary(["/lib/go.json": Self.goJSON])
        let loop = library.snippets[0]
        #expect(loop.location.range.start == SourcePosition(line: 2, asciiColumn: 2))
        let text = locatedText(loop, in: Self.goJSON)
        #expect(text.hasPrefix("\"For loop\": {"))
        #expect(text.hasSuffix("\"scope\": \"ignored-in-a-language-file\",\n  }"))
        #expect(locatedText(library.snippets[4], in: Self.goJSON) == #""New": { "prefix": "errnew", "body": "errors.New(\"${1}\")" }"#)
    }

    @Test func codeSnippetsFilesAreGlobalUnlessTheySayScope() {
        let text = """
            {
              "Greeting": { "prefix": "hi", "body": "Hello" },
              "Scoped": { "prefix": "log", "body": "console.log($1)", "scope": "javascript, typescript ,," }
            }
            """
        let library = loadLibrary(["/lib/mine.code-snippets": text])
        #expect(library.snippets.map(\.scopes) == [[], ["javascript", "typescript"]])
        #expect(library.snippets[0].isGlobal)
    }

    @Test func identifiersAreStableAcrossReloadsAndEdits() {
        let before = loadLibrary(["/lib/go.json": Self.goJSON])
        let edited = Self.goJSON.replacingOccurrences(of: "\"No trigger\"", with: "\"Renamed\"")
            .replacingOccurrences(of: "panic(", with: "log.Fatal(")
        let after = loadLibrary(["/lib/go.json": "\n\n" + edited])
        #expect(before.snippets.map(\.id) == loadLibrary(["/lib/go.json": Self.goJSON]).snippets.map(\.id))
        let unchanged = Set(before.snippets.map(\.id)).intersection(after.snippets.map(\.id))
        #expect(unchanged.count == 5)
        #expect(after.snippet(withID: before.snippets[0].id)?.location.range.start.line == 4)
    }

    @Test func reloadingOneFileReadsItAsTheFullLoadDid() throws {
        let files = ["/lib/package.json": Self.manifest, "/lib/snippets/py.json": Self.python]
        let library = loadLibrary(files)
        let file = try #require(library.files.first)
        let context = try #require(file.context)
        let loader = LibraryLoader(fileSystem: InMemoryFileSystem(files: files))
        let reloaded = loader.loadFile(at: file.path, context: context)
        #expect(reloaded == file)
        #expect(reloaded.snippets.first?.scopes == ["python", "py3"])
    }

    static let manifest = """
        {
          "name": "my-snippets",
          "contributes": {
            "snippets": [
              { "language": ["python", "py3"], "path": "./snippets/py.json" },
              { "language": "markdown", "path": "./snippets/missing.json" }
            ]
          }
        }
        """
    static let python = #"{ "Main": { "prefix": "main", "body": "if __name__ == \"__main__\":\n\t$0" } }"#

    @Test func packageManifestNamesTheFilesAndTheirLanguages() {
        let library = loadLibrary([
            "/lib/package.json": Self.manifest,
            "/lib/snippets/py.json": Self.python,
            "/lib/snippets/unlisted.json": #"{ "X": { "prefix": "x", "body": "x" } }"#,
        ])
        #expect(library.files.map(\.path) == ["/lib/snippets/py.json"])
        #expect(library.snippets.map(\.scopes) == [["python", "py3"]])
        #expect(summaries(library.loaderDiagnostics) == ["6:7 error missing-file"])
        #expect(library.loaderDiagnostics.first?.uri == "file:///lib/package.json")
    }

    @Test func projectSnippetsComeFromDotVSCodeUnderWorkspaceRoots() {
        let library = loadLibrary(
            [
                "/lib/all.code-snippets": #"{ "A": { "prefix": "a", "body": "a" } }"#,
                "/work/app/.vscode/team.code-snippets": #"{ "B": { "prefix": "b", "body": "b" } }"#,
                "/work/app/.vscode/settings.json": #"{ "editor.tabSize": 2 }"#,
                "/work/app/.hidden/x.code-snippets": #"{ "C": { "prefix": "c", "body": "c" } }"#,
            ], workspaceRoots: ["/work/app", "/work/none"])
        #expect(library.snippets.map(\.title) == ["A", "B"])
        #expect(library.files.map { $0.context?.isProjectFile } == [false, true])
        #expect(library.diagnostics.isEmpty)
    }

    @Test func fileURIsArePercentEncodedAbsolutePaths() {
        let library = loadLibrary(["/lib/My Snippets/été#1.code-snippets": #"{ "A": { "prefix": "a", "body": "a" } }"#])
        #expect(library.snippets.first?.location.uri == "file:///lib/My%20Snippets/%C3%A9t%C3%A9%231.code-snippets")
        #expect(DocumentURI("file:///lib/My%20Snippets/%C3%A9t%C3%A9%231.code-snippets").displayPath == "/lib/My Snippets/été#1.code-snippets")
    }
}
