import Foundation
import Testing

@testable import SnippetsCore

/// SirVer/ultisnips' own test cases, run from `Tests/Fixtures/format-peers/ultisnips.json`: each names its test file
/// and class, the keys typed and UltiSnips' `wanted` text, copied from the test. A body case is read as an
/// UltiSnips file and its converted body filled in as an LSP client fills it in (the typed text per field, a
/// field's default otherwise, transforms applied to the field's text); a file case is loaded and checked for the
/// snippets it offers and the problem it reports. Where our result differs, the case says what we give (`ours`)
/// and why; the test holds us to that.
@Suite struct UltiSnipsPeerCaseTests {
    struct Fixture: Decodable {
        var repository: String
        var commit: String
        var cases: [BodyCase]
        var fileCases: [FileCase]
    }

    struct BodyCase: Decodable, CustomTestStringConvertible, Sendable {
        var test: String
        var trigger: String
        var body: String
        var prefix: String
        var keys: String
        var fields: [String: String]
        var wanted: String
        var ours: String?
        var why: String?
        var testDescription: String { test }
    }

    struct FileCase: Decodable, CustomTestStringConvertible, Sendable {
        struct Problem: Decodable, Sendable {
            var code: String
            /// 1-based, as UltiSnips' messages give it.
            var line: Int
        }
        var test: String
        var file: String
        /// The triggers UltiSnips offers after reading the file, in file order.
        var triggers: [String]
        var problem: Problem?
        var ours: [String]?
        var why: String?
        var testDescription: String { test }
    }

    static let fixture: Fixture = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/format-peers/ultisnips.json")
        do {
            return try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
        } catch {
            fatalError("cannot read \(url.path): \(error)")
        }
    }()

    /// The body as our reader converts it (an UltiSnips file holding just this snippet).
    static func converted(_ body: String, trigger: String) -> (body: String, diagnostics: [LibraryDiagnostic]) {
        let text = "snippet \(trigger.contains(" ") ? "\"\(trigger)\"" : trigger) \"case\"\n\(body)\nendsnippet\n"
        let library = loadLibrary(["/lib/UltiSnips/all.snippets": text])
        return (library.snippets.first?.body ?? "", library.diagnostics)
    }

    /// What an LSP client shows once `fields` are typed: each tabstop's typed text, else its first placeholder's
    /// default; choices their first option; transforms applied (as VS Code applies them) to the field's text.
    static func filled(_ lsp: String, fields: [String: String]) -> String {
        let body = SnippetBody.parse(lsp).body
        var defaults: [Int: [SnippetElement]] = [:]
        func collect(_ elements: [SnippetElement]) {
            for element in elements {
                if case .placeholder(let number, let inner) = element {
                    if defaults[number] == nil { defaults[number] = inner }
                    collect(inner)
                }
                if case .choice(let number, let options) = element, defaults[number] == nil {
                    defaults[number] = [.text(options.first ?? "")]
                }
            }
        }
        collect(body.elements)
        func value(_ number: Int, depth: Int = 0) -> String {
            if let typed = fields[String(number)] { return typed }
            guard depth < 8, let inner = defaults[number] else { return "" }
            return render(inner, depth: depth + 1)
        }
        func render(_ elements: [SnippetElement], depth: Int = 0) -> String {
            elements.map { element -> String in
                switch element {
                case .text(let text): return text
                case .tabstop(let number), .placeholder(let number, _), .choice(let number, _): return value(number, depth: depth)
                case .variable(_, let fallback): return fallback.map { render($0, depth: depth) } ?? ""
                case .transform(.tabstop(let number), let transform): return transform.apply(to: value(number, depth: depth)) ?? ""
                case .transform(.variable, let transform): return transform.apply(to: "") ?? ""
                }
            }.joined()
        }
        var text = render(body.elements)
        // Without a `$0` the cursor ends after the snippet: what is typed there follows it.
        func hasFinalTabstop(_ elements: [SnippetElement]) -> Bool {
            elements.contains { element in
                switch element {
                case .tabstop(0), .placeholder(0, _), .choice(0, _): return true
                case .placeholder(_, let inner): return hasFinalTabstop(inner)
                default: return false
                }
            }
        }
        if !hasFinalTabstop(body.elements), let end = fields["0"] { text += end }
        return text
    }

    @Test func fixtureNamesItsCommitAndEnoughCases() {
        #expect(Self.fixture.repository == "SirVer/ultisnips")
        #expect(Self.fixture.commit.count == 40)
        #expect(Self.fixture.cases.count >= 100)
        #expect(Self.fixture.fileCases.count >= 8)
        #expect((Self.fixture.cases.compactMap(\.why) + Self.fixture.fileCases.compactMap(\.why)).allSatisfy { !$0.isEmpty })
    }

    @Test(arguments: fixture.cases)
    func bodyCase(_ peer: BodyCase) {
        let (lsp, diagnostics) = Self.converted(peer.body, trigger: peer.trigger)
        #expect(!diagnostics.contains { $0.severity <= .warning }, "\(diagnostics)")
        let ours = peer.prefix + Self.filled(lsp, fields: peer.fields)
        if let expected = peer.ours {
            #expect(ours == expected, "LSP body: \(lsp)")
            #expect(ours != peer.wanted, "recorded as a difference but now agrees with UltiSnips")
        } else {
            #expect(ours == peer.wanted, "LSP body: \(lsp)")
        }
    }

    /// With `ULTISNIPS_PEERS_RECORD=PATH`, writes what we give for every body case (test name → text) to PATH, to
    /// re-record `ours` where a difference is meant; without it, does nothing.
    @Test func recordOurs() throws {
        guard let path = ProcessInfo.processInfo.environment["ULTISNIPS_PEERS_RECORD"] else { return }
        var ours: [String: String] = [:]
        for peer in Self.fixture.cases {
            ours[peer.test] = peer.prefix + Self.filled(Self.converted(peer.body, trigger: peer.trigger).body, fields: peer.fields)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(ours).write(to: URL(fileURLWithPath: path))
    }

    @Test(arguments: fixture.fileCases)
    func fileCase(_ peer: FileCase) {
        let library = loadLibrary(["/lib/UltiSnips/all.snippets": peer.file])
        let triggers = library.snippets.flatMap(\.triggers)
        #expect(triggers == (peer.ours ?? peer.triggers))
        if peer.ours != nil { #expect(triggers != peer.triggers) }
        let problems = library.diagnostics.filter { $0.severity <= .warning }
        if let problem = peer.problem {
            #expect(problems.map(\.code.rawValue) == [problem.code])
            #expect(problems.first.map { $0.position.line + 1 } == problem.line)
        } else {
            #expect(problems.isEmpty, "\(problems)")
        }
    }
}
