import Foundation
@testable import SnippetsCore
import TestSupport
import Testing

@testable import SnippetsServer

private let snippetCapabilities: JSONValue = ["textDocument": ["completion": ["completionItem": ["snippetSupport": true]]]]

/// UltiSnips libraries from disk: the shared corpus (vim-snippets' `UltiSnips/` folder) and code that must never run.
@Suite struct UltiSnipsLibraryTests {
    static let corpus = LibraryCorpusTests.corpora + "/ultisnips"
    static let isPresent = FileManager.default.fileExists(atPath: corpus)

    /// The file's lines, split at each line feed byte (some corpus files end lines with CR LF, one `Character`).
    static func lines(of text: String) -> [Substring] {
        text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Substring($0) }
    }

    /// `snippet ` header lines in the corpus, counted by a plain scan of the files (not by the reader).
    static func headerLines() throws -> Int {
        let names = try FileManager.default.contentsOfDirectory(atPath: corpus).filter { $0.hasSuffix(".snippets") }
        return try names.reduce(0) { total, name in
            let text = try String(contentsOfFile: corpus + "/" + name, encoding: .utf8)
            return total + lines(of: text).filter { $0.hasPrefix("snippet ") }.count
        }
    }

    @Test(.enabled(if: isPresent, "../shared/corpora is absent")) func theCorpusLoadsEverySnippetWithoutAProblem() async throws {
        // On a thread of its own: the load computes for seconds (see `onOwnThread`).
        let library = await onOwnThread { LibraryLoader(fileSystem: DiskFileSystem()).load(paths: [Self.corpus]) }
        let headers = try Self.headerLines()
        #expect(headers == 1_892)
        #expect(library.files.count == 82)
        #expect(library.files.allSatisfy { $0.format == .ultisnips })
        // Snippets left out on purpose say so, each with a note: their body is made by code that is not run.
        let notLoaded = library.diagnostics.filter { $0.message.contains("so it was not loaded") }
        #expect(notLoaded.allSatisfy { $0.severity == .note })
        #expect(library.snippets.count + notLoaded.count == headers)
        // Apart from transforms whose regex backtracks without bound (javascript-node's `(.+\/)*(\w+)…`, which
        // editors run unbounded: `check` rightly warns of it), the corpus loads without a problem.
        let problems = library.diagnostics.filter { $0.severity <= .warning && $0.code != .backtrackingRegex }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        // Lines ending in CR LF (cs.snippets) are read as Python's text mode reads them: no CR in any body.
        #expect(!library.snippets.contains { $0.body.contains("\r") || $0.triggers.contains { $0.contains("\r") } })
        // Every converted body is LSP text that reads back as the same tree, with no problem of the grammar.
        for snippet in library.snippets {
            let parsed = SnippetBody.parse(snippet.body)
            #expect(parsed.problems.allSatisfy { $0.code == .backtrackingRegex }, "\(snippet.title): \(parsed.problems)")
            #expect(SnippetBody.parse(parsed.body.lspText()).body == parsed.body, "\(snippet.title)")
        }
        // Every snippet's location starts at its header.
        let starts = library.snippets.prefix(200).map { snippet -> Bool in
            let text = (try? String(contentsOfFile: DocumentURI(snippet.location.uri).displayPath, encoding: .utf8)) ?? ""
            let line = text.split(separator: "\n", omittingEmptySubsequences: false)[snippet.location.range.start.line]
            return line.hasPrefix("snippet ") && snippet.location.range.start.utf8Column == 0
        }
        #expect(starts.allSatisfy { $0 })

        // The figures the README and the closing note give (printed, not asserted beyond the above).
        var codes: [String: Int] = [:]
        for diagnostic in library.diagnostics { codes["\(diagnostic.severity.rawValue) \(diagnostic.code)", default: 0] += 1 }
        var options: [Character: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.corpus) where name.hasSuffix(".snippets") {
            let text = try String(contentsOfFile: Self.corpus + "/" + name, encoding: .utf8)
            for line in Self.lines(of: text) where line.hasPrefix("snippet ") {
                for option in UltiSnipsReader.parseHeader(line.dropFirst(7), hasContext: false).options { options[option, default: 0] += 1 }
            }
        }
        var elements: [String: Int] = [:]
        func count(_ items: [SnippetElement]) {
            for item in items {
                switch item {
                case .text: continue
                case .tabstop: elements["tabstop or mirror", default: 0] += 1
                case .placeholder(_, let inner):
                    elements["placeholder", default: 0] += 1
                    count(inner)
                case .choice: elements["choice", default: 0] += 1
                case .variable(let name, _): elements["variable \(name)", default: 0] += 1
                case .transform(.tabstop, _): elements["transformation", default: 0] += 1
                case .transform(.variable(let name), _): elements["transformation of \(name)", default: 0] += 1
                }
            }
        }
        for snippet in library.snippets { count(SnippetBody.parse(snippet.body).body.elements) }
        print("ultisnips corpus: \(headers) headers, \(library.snippets.count) snippets in \(library.files.count) files")
        print("ultisnips corpus options: \(options.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        print("ultisnips corpus diagnostics: \(codes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        print("ultisnips corpus bodies: \(elements.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
    }

    /// A library whose every piece of code would create a file if it ran.
    static func hostileLibrary() throws -> (folder: String, markers: String) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ultisnips-never-runs-\(UUID().uuidString)").path
        let markers = root + "/markers"
        try FileManager.default.createDirectory(atPath: root + "/UltiSnips", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: markers, withIntermediateDirectories: true)
        let text = """
            global !p
            open("\(markers)/global", "w").write("ran")
            endglobal

            context "open('\(markers)/context', 'w')"
            pre_expand "open('\(markers)/pre_expand', 'w')"
            post_jump "open('\(markers)/post_jump', 'w')"
            snippet mkpython "python" b
            a `!p open("\(markers)/python", "w").write("ran"); snip.rv = "x"` b ${1:field}
            endsnippet

            snippet mkvim "vim"
            a `!v writefile(["ran"], "\(markers)/vim")` b `!v system("touch \(markers)/vimsystem")`
            endsnippet

            snippet mkshell "shell"
            a `touch \(markers)/shell` b $(touch \(markers)/dollar) ${1/(.*)/`touch \(markers)\\/format`/}
            endsnippet

            snippet mkcontext "context" "open('\(markers)/option_e', 'w')" e
            context body
            endsnippet

            """
        try text.write(toFile: root + "/UltiSnips/all.snippets", atomically: true, encoding: .utf8)
        return (root, markers)
    }

    @Test func noPythonVimScriptOrShellFromASnippetEverRuns() async throws {
        let (folder, markers) = try Self.hostileLibrary()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let client = TestClient(diskLibrary: [folder])
        try await client.initialize(capabilities: snippetCapabilities)
        client.open("file:///w/a.txt", language: "plaintext", text: "mk")
        let items = try await client.complete("file:///w/a.txt", line: 0, character: 2).items
        #expect(Set(items.map(\.label)) == ["mkpython", "mkvim", "mkshell", "mkcontext"])
        for item in items {
            _ = try await client.result("completionItem/resolve", try JSONValue(encoding: item))
            if let id = item.data?.snippetID {
                _ = try await client.result("snippets/snippetText", ["id": .string(id)])
            }
        }
        let library = LibraryLoader(fileSystem: DiskFileSystem()).load(paths: [folder])
        for snippet in library.snippets {
            _ = SnippetBody.parse(snippet.body).body.plainText()
            _ = SnippetBody.parse(snippet.body).body.lspText()
        }
        let noted = library.diagnostics.filter { $0.message.contains("not run") }.count
        #expect(noted == 9)  // global, context, pre_expand, post_jump, !p, two !v, the shell backtick, option e
        // Nothing ran: the markers folder is as empty as it was made.
        #expect(try FileManager.default.contentsOfDirectory(atPath: markers).isEmpty)
    }

    @Test func aLineStartSnippetIsOfferedOnlyAtTheStartOfALine() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ultisnips-b-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/UltiSnips", withIntermediateDirectories: true)
        // SirVer/ultisnips test/test_SnippetOptions.py, SnippetOptions_OnlyExpandWhenWSInFront_*: ("test", "Expand me!", "", "b").
        try "snippet test \"\" b\nExpand me!\nendsnippet\n".write(toFile: folder + "/UltiSnips/all.snippets", atomically: true, encoding: .utf8)
        let client = TestClient(diskLibrary: [folder])
        try await client.initialize(capabilities: snippetCapabilities)
        for (number, line) in ["test", "   test", "a test"].enumerated() {
            client.open("file:///w/\(number).txt", language: "plaintext", text: line)
            let labels = try await client.complete("file:///w/\(number).txt", line: 0, character: line.utf16.count).items.map(\.label)
            #expect(labels == (line == "a test" ? [] : ["test"]), "\(line)")
        }
    }

    /// A client over one UltiSnips file holding `text`, and the folder to remove afterwards.
    static func client(over text: String, clientName: String = "test-client") async throws -> (client: TestClient, folder: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ultisnips-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/UltiSnips", withIntermediateDirectories: true)
        try text.write(toFile: folder + "/UltiSnips/all.snippets", atomically: true, encoding: .utf8)
        let client = TestClient(diskLibrary: [folder])
        try await client.initialize(capabilities: snippetCapabilities, clientName: clientName)
        return (client, folder)
    }

    /// What completing at the end of `line` offers: each item's label and the UTF-16 columns its edit replaces.
    static func offers(_ client: TestClient, _ line: String, file: String) async throws -> [String: Range<Int>] {
        client.open("file:///w/\(file).txt", language: "plaintext", text: line)
        let items = try await client.complete("file:///w/\(file).txt", line: 0, character: line.utf16.count).items
        var offers: [String: Range<Int>] = [:]
        for item in items {
            guard case .textEdit(let edit) = item.textEdit, edit.range.start.line == 0 else { continue }
            offers[item.label] = edit.range.start.character..<edit.range.end.character
        }
        return offers
    }

    /// SirVer/ultisnips test/test_ParseSnippets.py, _ParseSnippets_MultiWord (ParseSnippets_MultiWord_Simple,
    /// _Description, _Description_Option: `/test snip/`, `!snip test!`, `"snippet test" … b` expand on their words),
    /// and test_SnippetOptions.py MultiWordSnippet_Simple and MultiWord_SnippetOptions_OnlyExpandWhenWSInFront_*
    /// (`b`: "a test it" does not expand). A trigger of several words is offered once its first word is typed whole
    /// and its second begun, and the edit replaces every typed word of it, nothing before them.
    @Test func aMultiWordTriggerIsOfferedOverAllItsTypedWords() async throws {
        let (client, folder) = try await Self.client(over: """
            snippet /test snip/
            This is a test.
            endsnippet

            snippet !snip test! "Another snippet"
            This is another test.
            endsnippet

            snippet "snippet test" "Another snippet" b
            This is yet another test.
            endsnippet

            snippet "if else" "if and else"
            if ${1:cond}:
            \t$2
            else:
            \t$0
            endsnippet

            snippet "test it" "" b
            Expand me!
            endsnippet

            """)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cases: [(line: String, label: String, range: Range<Int>?)] = [
            ("test snip", "test snip", 0..<9),
            ("x test sn", "test snip", 2..<9),  // typed so far; "x " is not part of it
            ("tests sn", "test snip", nil),  // the first word must match whole
            ("snip test", "snip test", 0..<9),
            ("snippet test", "snippet test", 0..<12),
            ("  snippet te", "snippet test", 2..<12),
            ("if e", "if else", 0..<4),
            ("\tx = 1; if else", "if else", 8..<15),
            ("if", "if else", nil),  // one common word alone never offers it
            ("if ", "if else", nil),
            ("elif e", "if else", nil),  // the first word must match whole
            ("test it", "test it", 0..<7),
            ("   test it", "test it", 3..<10),
            ("a test it", "test it", nil),  // option b
        ]
        for (number, item) in cases.enumerated() {
            let offers = try await Self.offers(client, item.line, file: "m\(number)")
            #expect(offers[item.label] == item.range, "\(item.line): \(offers)")
        }
    }

    /// SirVer/ultisnips test/test_SnippetOptions.py, SnippetOptions_ExpandInwordSnippets_SimpleExpand ("atest" →
    /// "aExpand me!"), _ExpandSingle, SnippetOptions_ExpandInwordSnippetsWithOtherChars_Expand, _Expand2, _Expand3
    /// ("$test", "-test", "ßßtest") and MultiWord_SnippetOptions_ExpandInwordSnippets_SimpleExpand ("atest it"): a
    /// snippet with option `i` is offered when its whole trigger ends the typed text, even inside a word, and the
    /// edit replaces the trigger's characters only. A snippet without `i` keeps today's behaviour.
    @Test func anInWordSnippetIsOfferedAtTheEndOfAWord() async throws {
        let (client, folder) = try await Self.client(over: """
            snippet test "in word" i
            Expand me!
            endsnippet

            snippet sr "squared" iA
            ^2
            endsnippet

            snippet "test it" "two words in word" i
            Expand me too!
            endsnippet

            snippet est "plain"
            not in a word
            endsnippet

            """)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cases: [(line: String, label: String, range: Range<Int>?)] = [
            ("atest", "test", 1..<5),
            ("test", "test", 0..<4),
            ("$test", "test", 1..<5),
            ("-test", "test", 1..<5),
            ("ßßtest", "test", 2..<6),
            ("x^2 + xsr", "sr", 7..<9),
            ("atest it", "test it", 1..<8),
            ("atest", "est", nil),  // no option i: not inside a word
            ("atesT", "test", nil),  // UltiSnips compares case
            ("ates", "test", nil),  // the whole trigger, not a start of it, inside a word
        ]
        for (number, item) in cases.enumerated() {
            let offers = try await Self.offers(client, item.line, file: "i\(number)")
            #expect(offers[item.label] == item.range, "\(item.line): \(offers)")
        }
    }

    /// Neovim takes one start column per list and, where items' edits start in different columns, filters every item
    /// against the word before the cursor (runtime/lua/vim/lsp/completion.lua, `adjust_start_col`), then expands a
    /// snippet in place of what was typed from there. So for Neovim every item edits that word: a trigger of several
    /// words deletes the words before it in an additional edit and is filtered by the rest of its label; one offered
    /// inside a word replaces the whole word, keeping the word's start in its text.
    @Test func forNeovimEveryItemEditsTheWordBeforeTheCursor() async throws {
        let (client, folder) = try await Self.client(over: """
            snippet "if else" "two words"
            if ${1:cond} else
            endsnippet

            snippet else "one word"
            else:
            endsnippet

            snippet sr "squared" i
            ^2
            endsnippet

            """, clientName: "Neovim")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func items(_ line: String, file: String) async throws -> [String: CompletionItem] {
            client.open("file:///w/\(file).txt", language: "plaintext", text: line)
            let list = try await client.complete("file:///w/\(file).txt", line: 0, character: line.utf16.count)
            return Dictionary(list.items.map { ($0.label, $0) }, uniquingKeysWith: { first, _ in first })
        }
        func range(_ item: CompletionItem?) -> Range<Int>? {
            guard case .textEdit(let edit)? = item?.textEdit else { return nil }
            return edit.range.start.character..<edit.range.end.character
        }
        let words = try await items("x if e", file: "a")
        #expect(range(words["if else"]) == 5..<6 && range(words["else"]) == 5..<6, "\(words)")
        #expect(words["if else"]?.filterText == "else")
        let deleted = try #require(words["if else"]?.additionalTextEdits?.first)
        #expect(deleted.newText == "" && deleted.range.start.character == 2 && deleted.range.end.character == 5)
        #expect(words["else"]?.additionalTextEdits == nil)

        let inWord = try await items("x xsr", file: "b")
        let squared = try #require(inWord["sr"])
        #expect(range(squared) == 2..<5)
        #expect(squared.filterText == "xsr")
        guard case .textEdit(let edit)? = squared.textEdit else { Issue.record("no edit"); return }
        #expect(edit.newText == "x^2")
    }

    /// With a snippet offered inside a word, a list for a word being typed is incomplete: the next letter may make the
    /// trigger end the word (`xs` to `xsr`), and a client that filters its list itself (Neovim as you type) would
    /// otherwise never ask. Without one, the list is complete as before.
    @Test func aListIsIncompleteWhileAnInWordTriggerMayYetEndTheWord() async throws {
        let (client, folder) = try await Self.client(over: """
            snippet sr "squared" i
            ^2
            endsnippet

            snippet xsrf "a word"
            forgery
            endsnippet

            """)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        client.open("file:///w/a.txt", language: "plaintext", text: "x")
        #expect(try await client.complete("file:///w/a.txt", line: 0, character: 1).isIncomplete)
        let (plain, plainFolder) = try await Self.client(over: "snippet xsrf \"a word\"\nforgery\nendsnippet\n")
        defer { try? FileManager.default.removeItem(atPath: plainFolder) }
        plain.open("file:///w/a.txt", language: "plaintext", text: "x")
        #expect(try await !plain.complete("file:///w/a.txt", line: 0, character: 1).isIncomplete)
    }
}
