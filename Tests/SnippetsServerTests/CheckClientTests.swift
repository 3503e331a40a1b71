import Foundation
import SnippetsCore
import TestSupport
import Testing

@testable import SnippetsServer

/// `check --client NAME` over the shared corpora (friendly-snippets, vim-snippets, a personal library): every client's
/// report is run, and its counts are compared with what the corpus holds, counted here by walking the parsed bodies.
@Suite struct CheckClientTests {
    static let corpora = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpora").path
    static let isPresent = FileManager.default.fileExists(atPath: corpora)
    /// The corpora this report is about, named: the whole folder now also holds the espanso hub (41,000 matches),
    /// whose six loads here would starve the timing-sensitive tests running beside this one.
    static let libraries = ["friendly-snippets", "vim-snippets", "personal"].map { corpora + "/" + $0 }

    /// What the corpus holds, counted independently of `SnippetBody.losses(in:)`.
    struct Census {
        var snippets = 0
        /// Distinct tabstop numbers other than 0, per body, summed (unknown variables become stops too).
        var stops = 0
        var choices = 0
        var tabstopTransforms = 0
        /// Bodies using the clipboard or the selection (each name once per body).
        var editorVariables = 0
        var snippetsWithStops = 0
    }

    static func census(of library: SnippetLibrary) -> Census {
        var census = Census()
        for snippet in library.snippets {
            census.snippets += 1
            let body = SnippetBody.parse(snippet.body).body.withUnknownVariablesAsPlaceholders()
            var numbers: Set<Int> = []
            var editorNames: Set<String> = []
            func walk(_ elements: [SnippetElement]) {
                for element in elements {
                    switch element {
                    case .tabstop(let n): numbers.insert(n)
                    case .placeholder(let n, let children):
                        numbers.insert(n)
                        walk(children)
                    case .choice(let n, _):
                        numbers.insert(n)
                        census.choices += 1
                    case .transform(.tabstop(let n), _):
                        numbers.insert(n)
                        census.tabstopTransforms += 1
                    case .variable(let name, let defaultElements):
                        if ["CLIPBOARD", "TM_SELECTED_TEXT", "SELECTION"].contains(name) { editorNames.insert(name) }
                        walk(defaultElements ?? [])
                    case .transform(.variable(let name), _):
                        if ["CLIPBOARD", "TM_SELECTED_TEXT", "SELECTION"].contains(name) { editorNames.insert(name) }
                    case .text:
                        break
                    }
                }
            }
            walk(body.elements)
            numbers.remove(0)
            census.stops += numbers.count
            if !numbers.isEmpty { census.snippetsWithStops += 1 }
            census.editorVariables += editorNames.count
        }
        return census
    }

    struct Report: Decodable {
        struct Client: Decodable {
            var name: String
            var snippets: Int
            var snippetsLosingSomething: Int
            var counts: [String: Int]
            var losses: [Loss]
        }
        struct Loss: Decodable {
            var path: String
            var line: Int
            var column: Int
            var title: String
            var kind: String
            var message: String
        }
        var client: Client
    }

    static func report(_ client: String) async throws -> Report.Client {
        let result = await runCommand(["check"] + libraries.flatMap { ["--library", $0] } + ["--client", client, "--json"])
        #expect(result.err.isEmpty)
        return try JSONDecoder().decode(Report.self, from: Data(result.out.utf8)).client
    }

    @Test(.enabled(if: isPresent, "../shared/corpora not found; skipped"))
    func countsPerClientMatchWhatTheCorpusHolds() async throws {
        let census = await onOwnThread { Self.census(of: LibraryPaths(paths: Self.libraries, source: .flags).load()) }
        #expect(census.snippets > 1000)
        var reports: [String: Report.Client] = [:]
        for name in ["vscode", "neovim", "helix", "zed", "emacs-eglot", "plain"] {
            let report = try await Self.report(name)
            #expect(report.snippets == census.snippets, "\(name)")
            #expect(report.losses.count == report.counts.values.reduce(0, +), "\(name)")
            #expect(report.losses.allSatisfy { $0.line >= 1 && $0.column >= 1 && !$0.message.isEmpty }, "\(name)")
            reports[name] = report
            print("check --client \(name): \(report.snippetsLosingSomething) of \(report.snippets) snippets lose something \(report.counts.filter { $0.value > 0 })")
        }
        // VS Code loses nothing its own engine handles.
        #expect(reports["vscode"]?.losses.isEmpty == true)
        // Plain text loses every stop and every choice.
        #expect(reports["plain"]?.counts["tabstop"] == census.stops)
        #expect(reports["plain"]?.snippetsLosingSomething ?? 0 >= census.snippetsWithStops)
        #expect(reports["plain"]?.counts["choice"] == census.choices)
        // Helix and Zed lose each tabstop transform and the clipboard/selection; Helix, which would insert a choice
        // empty with no menu, also every choice's other options; Zed nothing else.
        for name in ["helix", "zed"] {
            #expect(reports[name]?.counts["transform"] == census.tabstopTransforms, "\(name)")
            #expect(reports[name]?.counts["editor-variable"] == census.editorVariables, "\(name)")
            #expect(reports[name]?.counts["nested-placeholder"] == 0, "\(name)")
        }
        #expect(reports["helix"]?.counts["choice"] == census.choices)
        #expect(reports["zed"]?.counts["choice"] == 0)
        // Emacs (yasnippet) loses Helix's, every choice included; nothing goes as plain text (escaping suffices).
        #expect(reports["emacs-eglot"]?.counts["choice"] == census.choices)
        #expect(reports["emacs-eglot"]?.counts["transform"] == census.tabstopTransforms)
        #expect(reports["emacs-eglot"]?.counts["plain-text-for-safety"] == 0)
        // Neovim loses Helix's (its vim.snippet would insert a choice empty), plus nested placeholders (the corpus
        // has them).
        #expect(reports["neovim"]?.counts["choice"] == census.choices)
        #expect(reports["neovim"]?.counts["transform"] == census.tabstopTransforms)
        #expect(reports["neovim"]?.counts["nested-placeholder"] ?? 0 > 0)
        #expect(census.choices > 0 && census.tabstopTransforms > 0 && census.editorVariables > 0)
    }

    @Test func textReportNamesEachLossAndSummarizes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("check-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("demo.code-snippets")
        try """
            {
              "Pick": { "prefix": "pick", "body": "${1|a,b|} ${2:x} ${2/(.*)/${1:/upcase}/} $CLIPBOARD" },
              "Plain": { "prefix": "plain", "body": "just text" }
            }
            """.write(to: file, atomically: true, encoding: .utf8)
        let eglot = await runCommand(["check", "--library", directory.path, "--client", "emacs-eglot"])
        #expect(eglot.status == 0)
        let lines = eglot.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        #expect(lines[0].hasPrefix("\(file.path):2:3: emacs-eglot: \"Pick\": the choice ${1|…|} offers only its first option 'a'"))
        #expect(lines[1].contains("the transform of tabstop 2 is not applied"))
        #expect(lines[2].contains("$CLIPBOARD is inserted empty"))
        #expect(lines[3] == "2 snippets in 1 file, 0 problems (run check without --client to list them)")
        #expect(lines[4] == "emacs-eglot: 1 of 2 snippets lose something (1 choice reduced to the first option, 1 transform not applied, 1 clipboard or selection variable left empty)")
        let vscode = await runCommand(["check", "--library", directory.path, "--client", "vscode"])
        #expect(vscode.out.hasSuffix("vscode: 0 of 2 snippets lose something\n"))
        let unknown = await runCommand(["check", "--library", directory.path, "--client", "notepad"])
        #expect(unknown.status == 2)
        #expect(unknown.err.contains("unknown client 'notepad'; use one of: neovim, vscode, helix, emacs-eglot"))
        let help = await runCommand(["check", "--help"])
        #expect(help.out.contains("--client NAME"))
    }
}
