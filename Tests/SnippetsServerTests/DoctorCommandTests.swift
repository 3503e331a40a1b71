import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// `snippets-lsp doctor`: what a user runs when "nothing happens".
struct DoctorCommandTests {
    private func temporaryLibrary() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/lib", withIntermediateDirectories: true)
        try #"{ "Doctype": { "prefix": "!doc", "body": "<!doctype html>" }, "Fn": { "prefix": "fn", "body": "fn $1() {}" } }"#
            .write(toFile: directory + "/lib/web.code-snippets", atomically: true, encoding: .utf8)
        return directory
    }

    @Test func namesEachLibraryPathWhereItCameFromItsCountsAndAMissingOneWithWhatToDo() async throws {
        let root = try temporaryLibrary()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let run = await runCommand(["doctor", "--library", root + "/lib", "--library", root + "/gone"])
        #expect(run.status == 1)
        #expect(run.out.contains("Library (from --library):"))
        #expect(run.out.contains("\(root)/lib: directory, 2 snippets in 1 file"))
        #expect(run.out.contains("\(root)/gone: does not exist"))
        #expect(run.out.contains("the library path '\(root)/gone' does not exist (from --library), so no snippets come from it. Create it"))
        #expect(run.out.contains("no model configured"))
        #expect(run.out.contains("triggerCharacters   ! (Neovim also gets"))
        #expect(run.out.contains("saveTo              \(root)/lib/saved.code-snippets"))

        let healthy = await runCommand(["doctor", "--library", root + "/lib"])
        #expect(healthy.status == 0)
        #expect(healthy.out.hasSuffix("No problems found.\n"))
    }

    @Test func editorSettingsWinAndTildeMeansHOME() async throws {
        let root = try temporaryLibrary()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let settings = #"{"snippets": {"libraries": ["~/lib"], "maxCompletionItems": 0, "askMarker": ">>"}}"#
        let run = await runCommand(["doctor", "--settings", settings, "--json"], environment: ["HOME": root])
        #expect(run.status == 1, "an invalid setting is a problem")
        let report = try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any]
        let library = report?["library"] as? [String: Any]
        #expect(library?["source"] as? String == "from the editor setting snippets.libraries")
        #expect((library?["paths"] as? [[String: Any]])?.first?["path"] as? String == root + "/lib")
        #expect(library?["snippets"] as? Int == 2)
        let effective = report?["settings"] as? [String: Any]
        #expect(effective?["askMarker"] as? String == ">>")
        #expect(effective?["maxCompletionItems"] as? Int == 50)
        #expect((report?["problems"] as? [String])?.contains { $0.contains("maxCompletionItems") } == true)
    }

    @Test func reportsWhetherTheModelAnswersAndItsContextSize() async throws {
        let root = try temporaryLibrary()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try FakeModelServer { request in
            request.path == "/props" ? props(2048) : FakeModelServer.completion("{}")
        }
        let up = await runCommand(["doctor", "--library", root + "/lib", "--model-url", server.url])
        #expect(up.status == 0)
        #expect(up.out.contains("\(server.url) (from --model-url): reachable, answers; context 2048 tokens per request"))
        server.stop()
        let down = await runCommand(["doctor", "--library", root + "/lib", "--model-url", server.url])
        #expect(down.status == 1)
        #expect(down.out.contains("NOT reachable"))
        #expect(down.out.contains("does not answer"))
    }

    @Test func helpAndUsageErrors() async {
        let help = await runCommand(["doctor", "--help"])
        #expect(help.status == 0)
        #expect(help.out.contains("Usage: snippets-lsp doctor"))
        #expect(await runCommand(["doctor", "--settings", "[1]"]).status == 2)
        #expect(await runCommand(["doctor", "extra"]).status == 2)
        let version = await runCommand(["--version"])
        #expect(version.out == "snippets-lsp \(LanguageServer.serverVersion)\n")
    }
}
