import Testing
@testable import SnippetsCore

/// Layers, precedence and conflicts over an in-memory library: one `load` helper, assertions on what a user sees.
@Suite struct LibraryConflictsTests {
    func load(_ layers: [(name: String, files: [String: String])]) -> SnippetLibrary {
        var all: [String: String] = [:]
        for layer in layers { for (path, text) in layer.files { all["/\(layer.name)/\(path)"] = text } }
        let library = LibraryLoader(fileSystem: InMemoryFileSystem(files: all))
            .load(layers: layers.map { LibraryLayer(path: "/\($0.name)", name: $0.name) })
        return LibraryConflicts.annotating(library)
    }

    func warnings(_ library: SnippetLibrary, code: String = "trigger-conflict") -> [String] {
        library.diagnostics.filter { $0.code.rawValue == code }.map { "\(DocumentURI($0.uri).displayPath):\($0.position.line + 1): \($0.message)" }
    }

    @Test func everySnippetAndFileKnowsItsLayer() {
        let library = load([("me", ["a.code-snippets": #"{ "A": { "prefix": "a", "body": "alpha" } }"#]), ("team", ["go.json": #"{ "B": { "prefix": "b", "body": "beta" } }"#])])
        #expect(library.snippets.map(\.layer) == ["me", "team"])
        #expect(library.files.map(\.layer) == ["me", "team"])
        #expect(library.layers.map(\.name) == ["me", "team"])
        #expect(library.layerRank(of: "team") == 1)
    }

    @Test func twiceInOneFileAndAcrossLayersForTheSameLanguage() {
        let library = load([
            ("me", ["javascript.snippets": "snippet log console\n\tconsole.log($1)\nsnippet log debug\n\tconsole.debug($1)\n"]),
            ("team", ["javascript.json": #"{ "Team log": { "prefix": "log", "body": "logger.info($1)" } }"#, "python.json": #"{ "Py log": { "prefix": "log", "body": "print($1)" } }"#]),
        ])
        let found = warnings(library)
        #expect(found.count == 3, "python's log conflicts with nothing: \(found)")
        #expect(found[0] == "/me/javascript.snippets:1: the trigger 'log' (javascript) is also defined at /me/javascript.snippets:3 (layer 'me'), /team/javascript.json:1 (layer 'team'); this one wins")
        #expect(found.filter { $0.hasSuffix("this one wins") }.count == 1)
        #expect(found.filter { $0.contains("/me/javascript.snippets:1 (layer 'me') wins") }.count == 2)
    }

    @Test func languagesAreComparedAsWrittenAndAllMeansEveryLanguage() {
        let library = load([
            ("me", ["all.snippets": "snippet date\n\t2024\n", "javascript.json": #"{ "Date": { "prefix": "date", "body": "new Date()" } }"#]),
            ("team", ["global.code-snippets": #"{ "Today": { "prefix": "date", "body": "$CURRENT_DATE" } }"#, "typescript.json": #"{ "TS date": { "prefix": "date", "body": "new Date() as Date" } }"#]),
        ])
        let found = warnings(library)
        #expect(found.count == 2)
        #expect(found.allSatisfy { $0.contains("(every language)") })
    }

    @Test func aSnippetForTwoLanguagesConflictingTwiceGetsOneMessage() {
        let library = load([
            ("me", ["a.code-snippets": #"{ "Log": { "prefix": "log", "body": "console.log($1)", "scope": "javascript,typescript" } }"#]),
            ("team", ["b.code-snippets": #"{ "Log": { "prefix": "log", "body": "logger.info($1)", "scope": "javascript,typescript" } }"#]),
        ])
        let found = warnings(library)
        #expect(found.count == 2)
        #expect(found.allSatisfy { $0.contains("(javascript, typescript)") })
        #expect(LibraryConflicts.triggerConflicts(in: library).map { $0.definitions.map(\.layer) } == [["me", "team"]])
    }

    @Test func identicalBodiesUnderOtherNamesAreAHintButShortOnesAreNot() {
        let body = "Thank you for your order; it ships tomorrow."
        let library = load([
            ("me", ["a.code-snippets": "{ \"Thanks\": { \"prefix\": \"ty\", \"body\": \"\(body)\" }, \"Paren\": { \"prefix\": \"p\", \"body\": \"($1)\" } }"]),
            ("team", ["b.code-snippets": "{ \"Order shipped\": { \"prefix\": \"ship\", \"body\": \"\(body)\" }, \"Parens\": { \"prefix\": \"pp\", \"body\": \"($1)\" } }"]),
        ])
        let hints = library.diagnostics.filter { $0.code.rawValue == "duplicate-body" }
        #expect(hints.count == 2)
        #expect(hints.allSatisfy { $0.severity == .hint })
        #expect(hints.first?.message == "'Thanks' has the same body as 'Order shipped' at /team/b.code-snippets:1 (layer 'team'); consider merging them")
    }

    @Test func aTriggerMatchFromTheFirstLayerRanksFirstWhateverTheScore() {
        let library = load([
            ("me", ["a.code-snippets": #"{ "Mine": { "prefix": "todo", "body": "x" } }"#]),
            ("team", ["b.code-snippets": #"{ "todo todo todo": { "prefix": "todo", "body": "todo todo todo", "description": "todo" } }"#]),
        ])
        let hits = TokenIndex(library: library).search("todo").hits
        #expect(hits.compactMap { library.snippet(withID: $0.snippetID)?.layer } == ["me", "team"])
    }

    @Test func layerSpecsAndDefaultNames() {
        #expect(LibraryLayer.splitSpec("team=~/src/team") == ("team", "~/src/team"))
        #expect(LibraryLayer.splitSpec("/a=b") == (nil, "/a=b"))
        #expect(LibraryLayer.splitSpec("x=") == (nil, "x="))
        #expect(LibraryLayer(path: "/home/me/.config/snippets").name == "snippets")
        #expect(LibraryLayer(path: "/lib/mine.code-snippets").name == "mine")
        #expect(LibraryLayer(path: "/").name == "library")
        let (layers, notes) = LibraryLayer.uniquelyNamed([LibraryLayer(path: "/a/s"), LibraryLayer(path: "/b/s"), LibraryLayer(path: "/c", name: "project")])
        #expect(layers.map(\.name) == ["s", "s-2", "project-2"])
        #expect(notes.count == 2)
    }

    @Test func sha1MatchesGitBlobIDs() {
        // `printf 'hello\n' | git hash-object --stdin` and the empty blob.
        #expect(SHA1.gitBlobID(Array("hello\n".utf8)) == "ce013625030ba8dba906f756967f9e9ca394464a")
        #expect(SHA1.gitBlobID([]) == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")
        #expect(SHA1.hex(Array("abc".utf8)) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(SHA1.hex([UInt8](repeating: 0x61, count: 1000)) == "291e9a6c66994949b57ba5e650361e98fc36b1ba")
    }
}
