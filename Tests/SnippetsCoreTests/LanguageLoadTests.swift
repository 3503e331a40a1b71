import Testing
@testable import SnippetsCore

/// `LibraryLoader.load(layers:workspaceRoots:language:)`: a load of the files one language needs serves that
/// language exactly as the whole library does, and leaves other languages' files unread.
@Suite struct LanguageLoadTests {
    /// Every format's way of giving a file its languages: names, a manifest, `extends`, `.yas-parents`, `prog-mode`,
    /// per-snippet scopes, and global files; two layers define `log`.
    static let files: [String: String] = [
        "/mine/python.json": #"{ "Log": { "prefix": "log", "body": "print('mine', $1)" } }"#,
        "/mine/mixed.code-snippets": #"{ "Main": { "scope": "python,go", "prefix": "main", "body": "main()" } }"#,
        "/mine/snippets/javascriptreact.snippets": "extends javascript\nsnippet comp\n\tconst C = () => null\n",
        "/mine/snippets/javascript.snippets": "snippet fn\n\tfunction $1() {}\n",
        "/mine/snippets/_.snippets": "snippet date\n\t2024\n",
        "/team/python.json": #"{ "Team log": { "prefix": "log", "body": "logging.info($1)" } }"#,
        "/team/go.json": #"{ "Err": { "prefix": "iferr", "body": "if err != nil {}" } }"#,
        "/team/pack/package.json": #"{ "contributes": { "snippets": [ { "language": ["python"], "path": "./py.json" }, { "language": "rust", "path": "./rs.json" } ] } }"#,
        "/team/pack/py.json": #"{ "Def": { "prefix": "def", "body": "def $1():" } }"#,
        "/team/pack/rs.json": #"{ "Fn": { "prefix": "fn", "body": "fn $1() {}" } }"#,
        "/emacs/snippets/c++-mode/.yas-parents": "cc-mode\n",
        "/emacs/snippets/cc-mode/if": "# key: if\n# --\nif ($1) {}",
        "/emacs/snippets/prog-mode/todo": "# key: todo\n# --\nTODO: $0",
        "/emacs/snippets/zig-mode/fn": "# key: zfn\n# --\nfn $1() {}",
    ]
    static let layers = [
        LibraryLayer(path: "/mine", name: "personal"), LibraryLayer(path: "/team", name: "team"),
        LibraryLayer(path: "/emacs", name: "emacs"),
    ]

    func load(language: String?) -> SnippetLibrary {
        LibraryLoader(fileSystem: InMemoryFileSystem(files: Self.files)).load(layers: Self.layers, language: language)
    }

    @Test(arguments: ["python", "javascriptreact", "javascript", "go", "rust", "cpp", "zig", "markdown", "ruby"])
    func aLanguagesFilesServeItAsTheWholeLibraryDoes(language: String) {
        let whole = load(language: nil)
        let partial = load(language: language)
        func served(_ library: SnippetLibrary) -> [SnippetID] {
            library.snippets.filter { library.applies($0, toLanguage: language) }.map(\.id)
        }
        // The same snippets in the same order: the earlier layer still ranks first.
        #expect(served(partial) == served(whole))
        #expect(partial.layers.map(\.name) == whole.layers.map(\.name))
    }

    @Test func otherLanguagesFilesAreNotRead() {
        func paths(_ language: String) -> Set<String> { Set(load(language: language).files.map(\.path)) }
        // Global and per-snippet-scoped files are read for every language; `extends` pulls in JavaScript.
        #expect(paths("javascriptreact") == [
            "/mine/mixed.code-snippets", "/mine/snippets/_.snippets", "/mine/snippets/javascript.snippets",
            "/mine/snippets/javascriptreact.snippets", "/emacs/snippets/prog-mode/todo",
        ])
        #expect(paths("cpp") == [
            "/mine/mixed.code-snippets", "/mine/snippets/_.snippets", "/emacs/snippets/c++-mode/.yas-parents",
            "/emacs/snippets/cc-mode/if", "/emacs/snippets/prog-mode/todo",
        ])
        let python = load(language: "python")
        #expect(python.snippets.filter { $0.triggers == ["log"] }.map(\.layer) == ["personal", "team"])
        #expect(!python.files.contains { $0.path.hasSuffix("rs.json") || $0.path.hasSuffix("go.json") })
    }
}
