import Foundation
import SnippetsCore
import Testing
@testable import SnippetsServer

@Suite struct CheckCommandTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/formats").path

    func check(_ arguments: [String], environment: [String: String] = [:]) async -> (status: Int32, out: String, err: String) {
        await runCommand(["check"] + arguments, environment: environment)
    }

    @Test func reportsEachFileEveryProblemAndASummary() async {
        let bad = Self.fixtures + "/bad"
        let result = await check(["--library", bad])
        #expect(result.status == 1)
        #expect(result.err.isEmpty)
        let expected = """
            \(bad)/broken.code-snippets: 2 snippets, 1 problem
            \(bad)/broken.code-snippets:3:3: error: malformed JSON: unexpected character '"': expected ',' or '}'
            \(bad)/sh.snippets: 2 snippets, 1 problem
            \(bad)/sh.snippets:2:6: error: Placeholder '${1:' has no closing '}', so it is inserted as literal text. (in snippet 'open')
            \(bad)/sh.snippets:4:2: note: backtick expression `strftime("%Y")` is not run (snippets-lsp never runs Vim script); it was replaced by ${CURRENT_YEAR}
            \(bad)/types.code-snippets: 1 snippet, 1 problem
            \(bad)/types.code-snippets:3:45: error: 'body' of snippet 'Number body' must be a string or an array of strings, not a number
            5 snippets in 3 files, 3 problems, 1 note

            """
        #expect(result.out == expected)
    }

    @Test func exitsZeroWhenNothingIsAnErrorAndReadsTheEnvironment() async {
        let result = await check([], environment: ["SNIPPETS_LIBRARY": Self.fixtures + "/good"])
        #expect(result.status == 0)
        #expect(result.out == "\(Self.fixtures)/good/markdown.json: 1 snippet\n1 snippet in 1 file, 0 problems\n")
    }

    @Test func saysWhyMeaningSearchIsOffAndHowToTurnItOn() async throws {
        let good = ["SNIPPETS_LIBRARY": Self.fixtures + "/good"]
        // A named encoder file that is not there: said in the text, and in the JSON, whatever else the machine has.
        let missing = await check([], environment: good.merging(["SNIPPETS_ENCODER": "/no/such/encoder.bin"]) { $1 })
        #expect(missing.status == 0)
        #expect(missing.out.contains("Meaning search is off: SNIPPETS_ENCODER names /no/such/encoder.bin, which is not a file."))
        let json = await check(["--json"], environment: good.merging(["SNIPPETS_ENCODER": "/no/such/encoder.bin"]) { $1 })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        let meaning = try #require(object["meaning"] as? [String: Any])
        #expect(meaning["state"] as? String == "off")
        // Turned off by the person: not repeated at them in the text, still in the JSON.
        let off = await check([], environment: good.merging(["SNIPPETS_ENCODER": "off"]) { $1 })
        #expect(!off.out.contains("Meaning search"))
    }

    @Test func missingLibraryPathIsNamedAndFails() async {
        let result = await check(["--library", "/no/such/library"])
        #expect(result.status == 1)
        #expect(result.out == "/no/such/library:1:1: error: the library path '/no/such/library' does not exist\n0 snippets in 0 files, 1 problem\n")
    }

    @Test func jsonReportIsStableAndComplete() async throws {
        let result = await check(["--library", Self.fixtures + "/bad", "--json"])
        #expect(result.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["conflicts", "diagnostics", "files", "layers", "library", "meaning", "totals"])
        let totals = try #require(object["totals"] as? [String: Int])
        #expect(totals == ["snippets": 5, "files": 3, "errors": 3, "warnings": 0, "notes": 1, "hints": 0, "problems": 3, "conflicts": 0])
        let diagnostics = try #require(object["diagnostics"] as? [[String: Any]])
        let types = diagnostics.first { $0["code"] as? String == "wrong-type" }
        #expect(types?["line"] as? Int == 3)
        #expect(types?["column"] as? Int == 45)
        #expect(types?["severity"] as? String == "error")
        #expect((types?["uri"] as? String)?.hasSuffix("/Fixtures/formats/bad/types.code-snippets") == true)
        let files = try #require(object["files"] as? [[String: Any]])
        #expect(files.map { $0["snippets"] as? Int } == [2, 2, 1])
        #expect(files.map { $0["format"] as? String } == ["vscode", "snipmate", "vscode"])
        // Same input, same bytes.
        #expect(await check(["--library", Self.fixtures + "/bad", "--json"]).out == result.out)
    }

    /// A library that keeps its yasnippet folder beside others (`yas/` rather than `snippets/`), as the folder
    /// `yas-snippet-dirs` names.
    @Test func aYasnippetFolderOutsideSnippetsIsRead() async throws {
        let library = FileManager.default.temporaryDirectory.appendingPathComponent("check-yas-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: library) }
        try FileManager.default.createDirectory(atPath: library + "/yas/text-mode", withIntermediateDirectories: true)
        try "# name: Standup\n# key: standup\n# --\nYesterday: $1\nToday: $2\n"
            .write(toFile: library + "/yas/text-mode/standup", atomically: true, encoding: .utf8)
        let result = await check(["--library", library])
        #expect(result.status == 0)
        #expect(result.out.hasPrefix("\(library)/yas/text-mode/standup: 1 snippet\n"), "\(result.out)")
        #expect(result.out.contains("\n1 snippet in 1 file, 0 problems\n"), "\(result.out)")
    }

    @Test func usageErrorsExitTwoAndHelpExplains() async {
        let unknown = await check(["--frobnicate"])
        #expect(unknown.status == 2)
        #expect(unknown.err.hasPrefix("snippets-lsp check: unknown option '--frobnicate'"))
        let extra = await check(["stray"])
        #expect(extra.status == 2)
        let help = await check(["--help"])
        #expect(help.status == 0)
        #expect(help.out.hasPrefix("Usage: snippets-lsp check [--library PATH]... [--client NAME] [--json]"))
    }
}
