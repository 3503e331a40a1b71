import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// Runs `snippets-lsp ARGUMENTS` in-process.
func runTool(_ arguments: [String]) async -> (status: Int32, out: String, err: String) {
    await runCommand(arguments, environment: ["HOME": "/nonexistent"])
}

let exampleLibraryPath = packageRoot.appendingPathComponent("examples/library").path

@Suite struct AskCommandTests {
    @Test func printsTheAnswerAndWhereEachCitedSnippetIs() async {
        let run = await runTool(["ask", "what's", "my", "postal", "address?", "--library", exampleLibraryPath])
        #expect(run.status == 0)
        // The title, then the line of its body that answers, exactly as the file has it.
        #expect(run.out.hasPrefix("Your library has \"Postal address\" (“Example Studio”).\n"))
        #expect(run.out.contains("writing.code-snippets:35"))
    }

    @Test func jsonIsExactlyTheLSPResult() async throws {
        let run = await runTool(["ask", "how do I retry a network call?", "--library", exampleLibraryPath, "--language", "python", "--limit", "3", "--json"])
        #expect(run.status == 0)
        let json = try JSONValue.parse(Array(run.out.utf8))
        #expect(try JSONSchemaValidator.load("snippets-ask.result.schema.json").violations(of: json) == [])
        let library = LibraryPaths(paths: [exampleLibraryPath], source: .flags).load()
        var expected = try await AskPipeline(library: library, sources: FileSystemSnippetSources(fileSystem: DiskFileSystem()))
            .answer(AskRequest(question: "how do I retry a network call?", language: "python", limit: 3))
        // The command says why meaning search is off (the test runs with SNIPPETS_ENCODER=off); the rest is equal.
        #expect(json["meaning"]?["state"]?.stringValue == "off")
        expected.meaning?.note = json["meaning"]?["note"]?.stringValue
        #expect(json == (try JSONValue(encoding: AskResponse(expected, encoding: .utf16, library: library))))
        #expect(json["candidates"]?.arrayValue?.count ?? 0 <= 3)
    }

    @Test func exitStatusSaysWhetherTheLibraryWasSearched() async throws {
        #expect(await runTool(["ask", "recipe for banana bread", "--library", exampleLibraryPath]).status == 0)
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("ask-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let emptyRun = await runTool(["ask", "invoice", "--library", empty.path])
        #expect(emptyRun.status == 1)
        #expect(emptyRun.out.contains("emptyLibrary (empty-library): Looked in: \(empty.path)"))
        let missing = await runTool(["ask", "invoice", "--library", "/nonexistent/snippets"])
        #expect(missing.status == 1)
        #expect(missing.out.contains("libraryUnreadable"))
        #expect(await runTool(["ask"]).status == 2)
        #expect(await runTool(["ask", "--limit", "0", "x"]).status == 2)
        #expect(await runTool(["ask", String(repeating: "a", count: 1001)]).status == 2)
        #expect(await runTool(["ask", "x", "--bogus"]).status == 2)
    }

    @Test(arguments: ["0", "51", "99", "-1", "9223372036854775808", "many"])
    func aBadLimitIsBlamedOnTheLimit(limit: String) async {
        let run = await runTool(["ask", "how do I chase an invoice?", "--limit", limit, "--library", exampleLibraryPath])
        #expect(run.status == 2)
        #expect(run.err.hasPrefix("snippets-lsp ask: '\(limit)' is not valid for --limit: expected a whole number from 1 to 50"), "\(run.err)")
        #expect(!run.err.contains("QUESTION:"))
    }

    @Test(arguments: [
        ["--model-url", "http://mira:hunter2-secret@127.0.0.1:8080/v1"],
        ["--model-url", "https://sk-hunter2-secret@api.example.com/v1"],
        ["--model-url", "ftp://mira:hunter2-secret@example.com"],
        ["--model-url", "mira:hunter2-secret@example.com"],
        ["--model-key-env", "sk-hunter2-secret"],
        ["--model", "m", "--model-key-env", "hunter2-secret"],
    ])
    func credentialsOnTheCommandLineAreNeverEchoed(options: [String]) async {
        for command in [["ask", "how do I chase an invoice?"], ["serve"]] {
            let run = await runTool(command + options + ["--library", exampleLibraryPath])
            #expect(run.status == 2, "\(command) \(options)")
            #expect(!(run.out + run.err).contains("hunter2"), "\(run.err)")
            #expect(run.err.contains("--model"), "the message names the option: \(run.err)")
        }
    }
}

/// `--help` is an option only where an option may stand: after `--` it is part of the question.
@Suite struct HelpOnlyWhereItIsAnOptionTests {
    @Test func aQuestionAfterDoubleDashMayMentionHelp() async {
        let run = await runTool(["ask", "--library", exampleLibraryPath, "--", "how", "do", "I", "use", "--help"])
        #expect(run.status == 0)
        #expect(!run.out.hasPrefix("Usage:"), "\(run.out)")
        let json = await runTool(["ask", "--library", exampleLibraryPath, "--json", "--", "overdue", "invoice", "--help"])
        #expect((try? JSONValue.parse(Array(json.out.utf8)))?["status"]?.stringValue == "answered", "\(json.out)")
    }

    @Test(arguments: [["ask", "--help"], ["ask", "x", "-h"], ["search", "--limit", "3", "--help"], ["gaps", "-h", "--"]])
    func helpWhereAnOptionStands(arguments: [String]) async {
        let run = await runTool(arguments)
        #expect(run.status == 0)
        #expect(run.out.hasPrefix("Usage: snippets-lsp \(arguments[0])"), "\(arguments)")
    }
}
