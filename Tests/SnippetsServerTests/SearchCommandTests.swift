import Foundation
import Testing
@testable import SnippetsServer

/// Runs `snippets-lsp ARGUMENTS` in-process and captures its exit status and both streams.
private func run(_ arguments: [String], environment: [String: String] = [:]) async -> (
    status: Int32, output: String, errors: String
) {
    let result = await runCommand(arguments, environment: environment)
    return (result.status, result.out, result.err)
}

/// A temporary library folder with one VS Code snippet file and one SnipMate file.
private func makeLibrary() throws -> String {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("search-command-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let json = """
        {
          "Invoice footer": {
            "prefix": "invfoot",
            "body": ["Payment is due within 14 days."],
            "description": "Footer for outgoing invoices"
          },
          "Log a value": {
            "prefix": ["log", "cl"],
            "scope": "javascript",
            "body": ["console.log($1);"]
          }
        }
        """
    try json.write(toFile: folder + "/mine.code-snippets", atomically: true, encoding: .utf8)
    try "snippet logger \"Python logger\"\n\tlogging.getLogger(__name__)\n"
        .write(toFile: folder + "/python.snippets", atomically: true, encoding: .utf8)
    return folder
}

@Suite struct SearchCommandTests {
    @Test func printsRankedHitsWithMatchKindAndOneBasedLine() async throws {
        let library = try makeLibrary()
        defer { try? FileManager.default.removeItem(atPath: library) }
        let result = await run(["search", "log", "--library", library])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.first == "log, cl  Log a value  (exact trigger)  \(library)/mine.code-snippets:7")
        #expect(lines.last?.hasPrefix("logger  Python logger  (trigger prefix)  \(library)/python.snippets:1") == true)
    }

    @Test func languageFilterAndLimit() async throws {
        let library = try makeLibrary()
        defer { try? FileManager.default.removeItem(atPath: library) }
        let python = await run(["search", "log", "--library", library, "--language", "python"])
        #expect(python.output.split(separator: "\n").map { String($0.prefix(6)) } == ["logger"])
        let limited = await run(["search", "log", "--library", library, "--limit", "1"])
        #expect(limited.output.contains("(1 of 2 matches; use --limit for more)"))
        let none = await run(["search", "zzzz", "--library", library])
        #expect(none.status == 0)
        #expect(none.output == "No snippets match 'zzzz'.\n")
    }

    @Test func aMissingOrEmptyLibraryIsNotANoMatch() async throws {
        let missing = "/nonexistent/snippets-\(UUID().uuidString)"
        for arguments in [["search", "log", "--library", missing], ["search", "log", "--library", missing, "--json"]] {
            let result = await run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(!result.output.contains("No snippets match"))
            #expect(result.errors.contains("could not be read"))
            #expect(result.errors.contains("the library path '\(missing)' does not exist"))
        }
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("search-empty-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let result = await run(["search", "log", "--library", empty])
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        // The same words as `ask` uses for an empty library.
        let asked = await run(["ask", "how do I log", "--library", empty])
        #expect(asked.status == 1)
        #expect(result.errors.contains("Your snippet library is empty, so there is nothing to search."))
        #expect(asked.output.contains("Your snippet library is empty, so there is nothing to search."))
        #expect(result.errors.contains("Looked in: \(empty)"))
    }

    @Test func jsonIsAStableArray() async throws {
        let library = try makeLibrary()
        defer { try? FileManager.default.removeItem(atPath: library) }
        let result = await run(["search", "invoice", "--library", library, "--json"])
        #expect(result.status == 0)
        let decoded = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]]
        let first = try #require(decoded?.first)
        #expect(decoded?.count == 1)
        #expect(Set(first.keys) == ["id", "title", "triggers", "match", "score", "layer", "location"])
        #expect(first["title"] as? String == "Invoice footer")
        #expect(first["triggers"] as? [String] == ["invfoot"])
        #expect(first["match"] as? String == "title")
        let location = try #require(first["location"] as? [String: Any])
        #expect((location["uri"] as? String)?.hasPrefix("file://") == true)
        let start = (location["range"] as? [String: Any])?["start"] as? [String: Any]
        #expect(start?["line"] as? Int == 1)
        let again = await run(["search", "invoice", "--library", library, "--json"])
        #expect(again.output == result.output)
    }

    @Test func usageErrorsExitTwoWithOneLine() async {
        for arguments in [["search"], ["search", "x", "--limit", "0"], ["search", "x", "--bogus"]] {
            let result = await run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.errors.split(separator: "\n").count == 1, "\(arguments): \(result.errors)")
            #expect(result.output.isEmpty)
        }
        let help = await run(["search", "--help"])
        #expect(help.status == 0)
        #expect(help.output.hasPrefix("Usage: snippets-lsp search QUERY"))
    }

    @Test func benchPrintsEveryFigure() async throws {
        let library = try makeLibrary()
        defer { try? FileManager.default.removeItem(atPath: library) }
        let result = await run(["bench", "--library", library, "--searches", "20", "--asks", "5", "--scale", "2"])
        #expect(result.status == 0)
        let labels = result.output.split(separator: "\n").map { String($0.prefix { $0 != ":" }) }
        #expect(labels == [
            "libraries", "snippets", "start-up", "then annotation", "peak memory", "search (typing)",
            "search (terms)", "conflicts", "ask facts", "ask (no model)", "ask CPU", "2x library", "start-up",
            "then annotation", "ask facts", "ask (no model)", "ask CPU", "ask CPU ratio", "peak memory",
        ])
        // Start-up is timed three times at each size by default, the median printed with the range.
        #expect(result.output.components(separatedBy: "; median of 3, range ").count == 3)
        #expect(result.output.contains("ratio "))
        #expect(result.output.contains("snippets:        3 in 2 files"))
        #expect(result.output.contains("over 20; "))
        // The larger library is the same files loaded twice under two roots: twice the snippets, none lost.
        #expect(result.output.contains("2x library:     6 snippets in 4 files"))
        #expect(result.output.contains("over 5\n"))
    }

    @Test func benchRejectsStrayArguments() async {
        let result = await run(["bench", "extra"])
        #expect(result.status == 2)
        #expect(result.errors.split(separator: "\n").count == 1)
    }
}
