import Foundation
import Testing

@testable import SnippetsCore
@testable import SnippetsServer

/// The server knows the editor's snippet engine from `initialize` as the real editors send it
/// (`Tests/Fixtures/client-capabilities`, captured from or evaluated out of each editor's own source): by
/// `clientInfo.name`, and by the shape of the capabilities where there is no name (Debian 12's eglot 1.9, Emacs 29's
/// eglot 1.12). What it sends yasnippet never runs code, and a choice never leaves a hole.
@Suite struct ClientRecognitionTests {
    /// `initialize` params of a fixture.
    static func fixture(_ name: String) throws -> JSONValue {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/client-capabilities/\(name).json")
        return try JSONText.parse([UInt8](Data(contentsOf: url)))
    }

    /// A body that runs Emacs Lisp in yasnippet three ways (a backquote, `$(…)` in a field, `$(…)` in a choice)
    /// and has a choice.
    static let hostileBody =
        #"`(make-directory "/tmp/x")` ${1|`(delete-file "a")`,two|} ${2:$(shell-command "x")} $$(ignore) end"#

    /// The completion `demo` gets under `initialize` params `params`, with its `insertTextFormat`.
    static func completion(params: JSONValue, body: String = hostileBody, options: JSONValue? = nil) async throws
        -> (text: String, format: Int?)
    {
        let library = TestLibrary([makeFile([makeSnippet("Demo", triggers: ["demo"], body: body)])])
        let client = TestClient(library: library)
        try await client.initialize(
            capabilities: params["capabilities"] ?? [:], clientName: params["clientInfo"]?["name"]?.stringValue,
            options: options)
        client.open("file:///w/note.txt", language: "plaintext", text: "demo")
        let item = try #require(try await client.complete("file:///w/note.txt", line: 0, character: 4).items.first)
        switch item.textEdit {
        case .textEdit(let edit): return (edit.newText, item.insertTextFormat?.rawValue)
        case .insertReplace(let edit): return (edit.newText, item.insertTextFormat?.rawValue)
        case nil: throw ResponseError.internalError("no edit")
        }
    }

    static func withoutClientInfo(_ params: JSONValue) -> JSONValue {
        guard case .object(var object) = params else { return params }
        object["clientInfo"] = nil
        return .object(object)
    }

    @Test(arguments: [
        ("eglot-1.9", KnownClient.ID.eglot), ("eglot-1.12", .eglot), ("eglot-1.24", .eglot),
        ("lsp-mode-8.0.0", .lspMode), ("lsp-mode-10.0.1", .lspMode), ("helix", .helix),
    ])
    func eachFixtureIsRecognisedByNameAndByShape(_ name: String, _ id: KnownClient.ID) throws {
        let params = try Self.fixture(name)
        let capabilities = try #require(params["capabilities"])
        let named = ClientCapabilities(raw: capabilities, clientName: params["clientInfo"]?["name"]?.stringValue)
        #expect(named.knownClient?.id == id)
        // Without a name: Emacs's clients by their shape; Helix always names itself and has no shape of its own.
        let unnamed = ClientCapabilities(raw: capabilities, clientName: nil)
        #expect(unnamed.knownClient?.id == (id == .helix ? nil : id))
        #expect(unnamed.snippetEngine == (id == .helix ? .generic : named.snippetEngine))
    }

    @Test func otherShapesAreNotTakenForEmacs() {
        // Helix's kinds start with "" as lsp-mode's do, but without lsp-mode's own key; an empty `experimental`
        // alone is not eglot.
        let helixLike: JSONValue = [
            "textDocument": [
                "codeAction": ["codeActionLiteralSupport": ["codeActionKind": ["valueSet": ["", "quickfix"]]]],
                "completion": ["completionItem": ["snippetSupport": true]],
            ],
            "experimental": [:],
        ]
        #expect(ClientCapabilities(raw: helixLike).knownClient == nil)
        #expect(ClientCapabilities(raw: [:]).knownClient == nil)
    }

    @Test(arguments: ["eglot-1.9", "eglot-1.12", "eglot-1.24", "lsp-mode-8.0.0", "lsp-mode-10.0.1"])
    func emacsGetsNothingYasnippetWouldRunAndNoRawChoice(_ name: String) async throws {
        for params in [try Self.fixture(name), Self.withoutClientInfo(try Self.fixture(name))] {
            let (text, format) = try await Self.completion(params: params)
            #expect(format == 2, "still a snippet: the fields are kept")
            #expect(
                text == #"\`(make-directory "/tmp/x")\` ${1:\`(delete-file "a")\`} ${2:\$(shell-command "x")} \$\$(ignore) end"#)
            #expect(!YasnippetReading.wouldEvaluate(text))
            #expect(!text.contains("|"), "a raw choice reads as a field named 1|…| in yasnippet")
        }
    }

    @Test func eglotKeepingChoicesStillRunsNothing() async throws {
        // `choices: keep` sends the choice syntax; its options are escaped so yasnippet's reading of it as a field
        // finds no `$(…)` and no backquote.
        let (text, format) = try await Self.completion(
            params: try Self.fixture("eglot-1.9"), options: ["choices": "keep"])
        #expect(format == 2)
        #expect(text.contains(#"${1|\`(delete-file "a")\`,two|}"#))
        #expect(!YasnippetReading.wouldEvaluate(text))
        let dollar = try await Self.completion(
            params: try Self.fixture("eglot-1.9"), body: "${1|$(shell-command \"x\"),b|}", options: ["choices": "keep"])
        #expect(dollar.text == #"${1|\$(shell-command "x"),b|}"#)
        #expect(!YasnippetReading.wouldEvaluate(dollar.text))
    }

    @Test func variableTransformsLeftToEmacsAreNeverSentAsCode() async throws {
        // `resolveVariables: never` leaves a variable transform as written; yasnippet would read `$(…)` in its
        // format as a field transform, so the body goes as plain text.
        let (text, format) = try await Self.completion(
            params: try Self.fixture("eglot-1.9"), body: "${TM_FILENAME/(.*)/$(shell-command \"x\")/} ${1:a}",
            options: ["resolveVariables": "never"])
        #expect(format == 1)
        #expect(!text.contains("${1"))
    }

    @Test func anUnknownClientMayBeYasnippet() async throws {
        // A client nothing recognises might hand snippets to yasnippet: a body yasnippet would run goes as plain
        // text; others keep their fields, each choice as its first option.
        let unknown: JSONValue = ["capabilities": ["textDocument": ["completion": ["completionItem": ["snippetSupport": true]]]]]
        let hostile = try await Self.completion(params: unknown)
        #expect(hostile.format == 1)
        #expect(hostile.text == #"`(make-directory "/tmp/x")` `(delete-file "a")` $(shell-command "x") $$(ignore) end"#)
        let plain = try await Self.completion(params: unknown, body: "Hi ${1:name}, ${2|yes,no|} \\$(x)")
        #expect(plain.format == 2)
        #expect(plain.text == #"Hi ${1:name}, ${2:yes} \$(x)"#)
    }

    @Test(arguments: ["helix", "neovim"])
    func choicesNeverLeaveAHole(_ name: String) async throws {
        // Helix renders a choice as nothing, with no menu; Neovim's vim.snippet inserts it empty until an option is
        // picked: both get the first option as a placeholder.
        let params: JSONValue =
            name == "helix"
            ? try Self.fixture("helix")
            : ["capabilities": ["textDocument": ["completion": ["completionItem": ["snippetSupport": true]]]],
                "clientInfo": ["name": "Neovim"]]
        let (text, format) = try await Self.completion(
            params: params, body: "I'm out of the office until ${1|Monday,Tuesday|} with ${2|no,some|} access")
        #expect(format == 2)
        #expect(text == "I'm out of the office until ${1:Monday} with ${2:no} access")
    }

    @Test func vscodeAndZedKeepTheirChoiceMenus() async throws {
        for name in ["Visual Studio Code", "Zed"] {
            let params: JSONValue = [
                "capabilities": ["textDocument": ["completion": ["completionItem": ["snippetSupport": true]]]],
                "clientInfo": ["name": .string(name)],
            ]
            let (text, _) = try await Self.completion(params: params, body: "${1|Monday,Tuesday|}")
            #expect(text == "${1|Monday,Tuesday|}")
        }
    }

    @Test func snippetTextForAnUnknownClientIsEscapedForYasnippet() async throws {
        let library = TestLibrary([makeFile([makeSnippet("Demo", triggers: ["demo"], body: Self.hostileBody)])])
        let client = TestClient(library: library)
        try await client.initialize(
            capabilities: ["textDocument": ["completion": ["completionItem": ["snippetSupport": true]]]], clientName: nil)
        let id = try #require(library.load(["/lib"]).snippets.first?.id.rawValue)
        let result = try await client.result("snippets/snippetText", ["id": .string(id)])
        let snippet = try #require(result["snippet"]?.stringValue)
        #expect(!YasnippetReading.wouldEvaluate(snippet))
        #expect(snippet.hasPrefix(#"\`(make-directory"#))
    }
}

/// `check --client NAME` reports on the engine each recognised client gets, and what it reports is what is sent.
@Suite struct CheckReportsWhatIsSentTests {
    @Test func everyRecognisedClientsEngineIsOneCheckKnows() {
        for client in KnownClient.all {
            #expect(KnownClient.checkableEngine(named: client.engine.name) == client.engine, "\(client.id)")
        }
        #expect(KnownClient.checkableEngines.contains(.generic))
    }

    @Test func lossesMatchTheRenderedText() {
        let bodies = [
            "${1|Monday,Tuesday|} and ${2:x}", "`(emacs-version)` ${1:a}", "```${1:lang}\n$0\n```", "plain ${1:a}",
            "${1|a,`b`|}", "${2|x,y|} ${1:$(shell-command)}", "${1|a,b|} `date`",
        ]
        for engine in KnownClient.checkableEngines where engine.takesSnippets {
            let name = engine.name
            for source in bodies {
                let body = SnippetBody.parse(source).body
                let insertion = body.insertion(for: engine)
                let kinds = Set(body.losses(in: engine).map(\.kind))
                #expect(kinds.contains(.code) == !insertion.isSnippet, "\(name): \(source)")
                // Plain text for safety is reported once, with the stops it loses.
                if kinds.contains(.code) { continue }
                let hasChoice = body.elements.contains { if case .choice = $0 { true } else { false } }
                let sentAsChoice = insertion.isSnippet && insertion.text.contains("|")
                #expect(kinds.contains(.choice) == (hasChoice && !sentAsChoice), "\(name): \(source) -> \(insertion.text)")
            }
        }
    }
}
