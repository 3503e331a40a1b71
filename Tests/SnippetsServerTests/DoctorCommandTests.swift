import Foundation
import SnippetsCore
import SnippetsModelClient
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

    /// The hint for an empty library names every format the server reads, yasnippet's and espanso's too.
    @Test func anEmptyLibrarySaysWhatToAddInEveryFormat() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-empty-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let run = await runCommand(["doctor", "--library", root])
        #expect(run.out.contains(
            "The library holds no snippets: add VS Code .code-snippets and <language>.json files, SnipMate and UltiSnips "
                + ".snippets files, espanso match/*.yml files or yasnippet <major-mode>/ folders to \(root)."), "\(run.out)")
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

    @Test func listsEverySettingInEffectTheModelsMembersOneByOne() async throws {
        let root = try temporaryLibrary()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let settings = #"{"choices": "firstOption", "learning": false, "resolveVariables": "never", "model": {"url": "http://127.0.0.1:9", "name": "tiny", "candidates": 5}}"#
        let run = await runCommand(["doctor", "--library", root + "/lib", "--settings", settings])
        let listed = run.out.components(separatedBy: "Editor settings in effect:\n").last?.components(separatedBy: "\n\n").first ?? ""
        let lines = listed.split(separator: "\n").map { $0.split(separator: " ", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) } }
        let values = Dictionary(lines.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }) { first, _ in first }
        #expect(values["choices"] == "firstOption")
        #expect(values["learning"] == "false")
        #expect(values["resolveVariables"] == "never")
        #expect(values["maxCompletionItems"] == "50")
        #expect(values["askMarker"] == "??")
        #expect(values["model.url"] == "http://127.0.0.1:9")
        #expect(values["model.name"] == "tiny")
        #expect(values["model.candidates"] == "5")
        #expect(values["model.timeoutSeconds"] == "30.0")
        #expect(values["model.apiKeyEnvironmentVariable"] == "(not set)")
        #expect(values["saveTo"] == root + "/lib/saved.code-snippets")
        // Every setting the server reads is listed, so one added later shows up too.
        for child in Mirror(reflecting: ServerSettings()).children where child.label != "model" {
            #expect(values[child.label ?? ""] != nil, "\(child.label ?? "?") is not listed")
        }
        #expect(values.keys.filter { $0.hasPrefix("model.") }.count == Mirror(reflecting: ModelConfiguration(baseURL: URL(string: "http://x")!)).children.count)

        let none = await runCommand(["doctor", "--library", root + "/lib", "--json"])
        let report = try JSONSerialization.jsonObject(with: Data(none.out.utf8)) as? [String: Any]
        let effective = report?["settings"] as? [String: Any]
        #expect(effective?["choices"] as? String == "auto")
        #expect(effective?["learning"] as? Bool == true)
        #expect((effective?["inEffect"] as? [String: String])?["model"] == "(none: ask answers from your snippets alone)")
    }

    @Test func hintsRepeatTheLibraryOptionsItWasGiven() async throws {
        let root = try temporaryLibrary()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/team", withIntermediateDirectories: true)
        try #"{ "Broken": { "prefix": "br", "body": "#.write(toFile: root + "/team/bad.code-snippets", atomically: true, encoding: .utf8)
        let run = await runCommand(["doctor", "--library", root + "/lib", "--library", "team=" + root + "/team"])
        #expect(run.status == 1)
        #expect(run.out.contains("1 error in your snippet files: run `snippets-lsp check --library \(root)/lib --library team=\(root)/team` to see each with its line."))
        // From the editor's setting: the same paths, as options `check` takes.
        let fromSetting = await runCommand(["doctor", "--settings", #"{"libraries": ["~/team"]}"#], environment: ["HOME": root])
        #expect(fromSetting.out.contains("run `snippets-lsp check --library \(root)/team` to see each"))
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
