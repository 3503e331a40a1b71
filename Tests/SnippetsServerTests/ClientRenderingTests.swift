import Foundation
import Testing

@testable import SnippetsCore
@testable import SnippetsServer

/// Each editor gets the whole snippet, as far as its engine allows: the server knows the client from `initialize`
/// (`clientInfo.name` and capabilities, replayed here as the editors send them) and renders the rest itself.
@Suite struct ClientRenderingTests {
    /// `initialize` as each editor sends it (the parts the server reads).
    static func capabilities(snippets: Bool, insertReplace: Bool = false) -> JSONValue {
        [
            "textDocument": [
                "completion": [
                    "completionItem": ["snippetSupport": .bool(snippets), "insertReplaceSupport": .bool(insertReplace)]
                ]
            ],
            "general": ["positionEncodings": ["utf-8", "utf-32", "utf-16"]],
        ]
    }

    static let library = TestLibrary([
        makeFile([
            makeSnippet(
                "Demo", triggers: ["demo"],
                body: "${1|one,two|} `date` ${2:x} ${2/(.*)/${1:/upcase}/} $TM_FILENAME $UNKNOWN ${1:y}")
        ])
    ])

    /// The text a client gets for `demo` in `a.py`.
    static func insertText(
        client name: String?, snippets: Bool = true, insertReplace: Bool = false, options: JSONValue? = nil
    ) async throws -> (text: String, format: Int?) {
        let client = TestClient(library: library)
        try await client.initialize(
            capabilities: capabilities(snippets: snippets, insertReplace: insertReplace), clientName: name,
            options: options)
        client.open("file:///w/a.py", language: "python", text: "demo")
        let item = try #require(try await client.complete("file:///w/a.py", line: 0, character: 4).items.first)
        switch item.textEdit {
        case .textEdit(let edit): return (edit.newText, item.insertTextFormat?.rawValue)
        case .insertReplace(let edit): return (edit.newText, item.insertTextFormat?.rawValue)
        case nil: throw ResponseError.internalError("no edit")
        }
    }

    @Test(arguments: [
        // VS Code does everything itself; only the unknown variable becomes its placeholder, as VS Code's own
        // snippet loader makes it.
        ("Visual Studio Code", true, "${1|one,two|} `date` ${2:x} ${2/(.*)/${1:/upcase}/} $TM_FILENAME ${3:UNKNOWN} ${1:y}"),
        // Helix, Zed and Neovim: variables resolved here, the transform mirrored, the later default of $1 dropped
        // (the choice defines it). Zed inserts a choice's first option and offers the rest; Helix and Neovim would
        // insert it empty, so they get the first option as a placeholder.
        ("helix", true, "${1:one} `date` ${2:x} $2 a.py ${3:UNKNOWN} $1"),
        ("Zed", true, "${1|one,two|} `date` ${2:x} $2 a.py ${3:UNKNOWN} $1"),
        ("Neovim", true, "${1:one} `date` ${2:x} $2 a.py ${3:UNKNOWN} $1"),
        // yasnippet (eglot, lsp-mode): no choices, and a backquote would run Emacs Lisp.
        ("Eglot", true, #"${1:one} \`date\` ${2:x} $2 a.py ${3:UNKNOWN} $1"#),
        ("emacs", true, #"${1:one} \`date\` ${2:x} $2 a.py ${3:UNKNOWN} $1"#),
        // Without snippet support (eglot without yasnippet): plain text, every default accepted.
        ("Eglot", false, "one `date` x X a.py UNKNOWN one"),
    ] as [(String, Bool, String)])
    func eachClientGetsWhatItsEngineCanInsert(client name: String, snippets: Bool, expected: String) async throws {
        let (text, format) = try await Self.insertText(client: name, snippets: snippets)
        #expect(text == expected)
        #expect(format == (snippets ? 2 : 1))
    }

    @Test func choicesSettingOverridesTheClientDefault() async throws {
        // `firstOption` for a client that shows choices, `keep` for one that (the server thinks) cannot.
        let vscode = try await Self.insertText(client: "Visual Studio Code", options: ["choices": "firstOption"])
        #expect(vscode.text.hasPrefix("${1:one} `date`"))
        let eglot = try await Self.insertText(client: "Eglot", options: ["snippets": ["choices": "keep"]])
        #expect(eglot.text.hasPrefix(#"${1|one,two|} \`date\`"#))
        let auto = try await Self.insertText(client: "Eglot", options: ["choices": "auto"])
        #expect(auto.text.hasPrefix(#"${1:one} \`date\`"#))
    }

    @Test func unknownSnippetClientsGetPlainTextWhereYasnippetWouldRunCode() async throws {
        // The body's backquote would run in yasnippet, and an unknown client may hand snippets to it.
        let (text, format) = try await Self.insertText(client: "some-new-editor")
        #expect(text == "one `date` x X a.py UNKNOWN one")
        #expect(format == 1)
        let unnamed = try await Self.insertText(client: nil)
        #expect(unnamed.text == text)
    }

    @Test func snippetTextRequestRendersForTheClientToo() async throws {
        let client = TestClient(library: Self.library)
        try await client.initialize(capabilities: Self.capabilities(snippets: true), clientName: "helix")
        client.open("file:///w/a.py", language: "python", text: "")
        let id = try #require(Self.library.load(["/lib"]).snippets.first?.id.rawValue)
        let result = try await client.result(
            "snippets/snippetText",
            ["id": .string(id), "textDocument": ["uri": "file:///w/a.py"], "position": ["line": 0, "character": 0]])
        #expect(result["snippet"]?.stringValue == "${1:one} `date` ${2:x} $2 a.py ${3:UNKNOWN} $1")
        #expect(result["text"]?.stringValue == "one `date` x X a.py UNKNOWN one")
    }

    @Test(arguments: [
        ("Visual Studio Code", "vscode"), ("Visual Studio Code - Insiders", "vscode"), ("VSCodium", "vscode"),
        ("Neovim", "neovim"), ("helix", "helix"), ("Zed", "zed"), ("Eglot", "emacs-eglot"),
        ("emacs", "emacs-lsp-mode"),
    ])
    func clientNamesMapToEngines(_ clientName: String, _ engine: String) {
        #expect(ClientCapabilities(raw: Self.capabilities(snippets: true), clientName: clientName).snippetEngine.name == engine)
        #expect(ClientCapabilities(raw: Self.capabilities(snippets: false), clientName: clientName).snippetEngine == .plain)
    }
}
