import Foundation
import Testing

@testable import SnippetsCore

/// joaotavora/yasnippet's own tests (`yasnippet-tests.el`), as data in `Tests/Fixtures/format-peers/yasnippet.json`:
/// each template converted by our reader, inserted with every default taken (and after typing into a field), must
/// give what yasnippet's assertion says, or the recorded difference (`ours`, with `why`).
@Suite struct YasnippetPeerCaseTests {
    struct Fixture: Decodable {
        struct Source: Decodable {
            var repository: String
            var commit: String
            var file: String
        }
        var source: Source
        var cases: [Case]
        var loads: [Load]
    }

    struct Step: Decodable, Sendable {
        var field: Int
        var type: String
        var yasnippet: String
        var ours: String?
        var why: String?
    }

    struct Case: Decodable, CustomTestStringConvertible, Sendable {
        var test: String
        var line: Int
        var template: String
        var yasnippet: String?
        var ours: String?
        var why: String?
        var selection: String?
        var steps: [Step]?
        var order: [Int]?
        var fields: [String: String]?
        var testDescription: String { "\(test) (yasnippet-tests.el:\(line))" }
    }

    struct Load: Decodable, CustomTestStringConvertible, Sendable {
        var test: String
        var line: Int
        var files: [String: String]
        var yasnippet: String
        var why: String?
        var triggers: [[String]]
        var bodies: [String]
        var codes: [String]?
        var language: String?
        var offered: [String]?
        var notOffered: [String]?
        var scopes: [String]?
        var testDescription: String { "\(test) (yasnippet-tests.el:\(line))" }
    }

    static let fixture: Fixture = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/format-peers/yasnippet.json")
        do {
            return try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
        } catch {
            fatalError("cannot read \(url.path): \(error)")
        }
    }()

    /// The body with field `number`'s text replaced by `text`, as typing into it does (its first tabstop made a
    /// placeholder when it has none).
    static func typing(_ text: String, into number: Int, _ body: SnippetBody) -> SnippetBody {
        var hasPlaceholder = false
        func scan(_ elements: [SnippetElement]) {
            for element in elements {
                if case .placeholder(let n, let children) = element {
                    if n == number { hasPlaceholder = true }
                    scan(children)
                }
            }
        }
        scan(body.elements)
        var replacedTabstop = hasPlaceholder
        func replace(_ elements: [SnippetElement]) -> [SnippetElement] {
            elements.map { element in
                switch element {
                case .placeholder(let n, let children):
                    return n == number ? .placeholder(n, [.text(text)]) : .placeholder(n, replace(children))
                case .choice(let n, _) where n == number:
                    return .placeholder(n, [.text(text)])
                case .tabstop(let n) where n == number && !replacedTabstop:
                    replacedTabstop = true
                    return .placeholder(n, [.text(text)])
                default:
                    return element
                }
            }
        }
        return SnippetBody(elements: replace(body.elements))
    }

    @Test func fixtureNamesItsSourceAndCoversFieldsMirrorsAndEscapes() {
        #expect(Self.fixture.source.repository == "joaotavora/yasnippet")
        #expect(Self.fixture.source.commit.count == 40)
        #expect(Self.fixture.cases.count >= 25)
        #expect(Self.fixture.cases.allSatisfy { ($0.ours == nil) == ($0.why == nil) })
    }

    @Test(arguments: fixture.cases) func templateInsertsWhatYasnippetInserts(_ peer: Case) throws {
        let converted = YasnippetBodyConverter.convert(Substring(peer.template), at: 0)
        let parsed = SnippetBody.parse(converted.text)
        #expect(parsed.problems.isEmpty, "\(converted.text): \(parsed.problems)")
        let body = parsed.body
        let resolve: (String) -> String? = { $0 == "TM_SELECTED_TEXT" ? peer.selection : nil }
        if let expected = peer.ours ?? peer.yasnippet {
            #expect(body.plainText(resolving: resolve) == expected, "LSP text: \(converted.text)")
        }
        if let ours = peer.ours {
            #expect(ours != peer.yasnippet, "a recorded difference that is none")
        }
        for step in peer.steps ?? [] {
            let typed = Self.typing(step.type, into: step.field, body)
            #expect(typed.plainText(resolving: resolve) == step.ours ?? step.yasnippet, "typing '\(step.type)' into \(step.field)")
            if let ours = step.ours { #expect(ours != step.yasnippet) }
        }
        if let order = peer.order {
            var numbers: [Int] = []
            func scan(_ elements: [SnippetElement]) {
                for element in elements {
                    switch element {
                    case .tabstop(let n), .choice(let n, _): if n != 0, !numbers.contains(n) { numbers.append(n) }
                    case .placeholder(let n, let children):
                        if n != 0, !numbers.contains(n) { numbers.append(n) }
                        scan(children)
                    default: break
                    }
                }
            }
            scan(body.elements)
            #expect(numbers.sorted() == order)
        }
        for (field, text) in peer.fields ?? [:] {
            let number = try #require(Int(field))
            let value = body.elements.compactMap { element -> String? in
                if case .placeholder(number, let children) = element { return SnippetBody(elements: children).plainText() }
                return nil
            }.first
            #expect(value == text)
        }
    }

    @Test(arguments: fixture.loads) func loadingGivesWhatYasnippetGives(_ peer: Load) {
        var files: [String: String] = [:]
        for (path, text) in peer.files { files["/lib/snippets/" + path] = text }
        let library = loadLibrary(files)
        #expect(library.snippets.map(\.triggers) == peer.triggers)
        #expect(library.snippets.map(\.body) == peer.bodies)
        if let codes = peer.codes {
            #expect(library.diagnostics.map(\.code.rawValue) == codes)
        } else {
            #expect(library.diagnostics.isEmpty, "\(library.diagnostics)")
        }
        if let language = peer.language {
            let offered = Set(library.snippets.filter { library.applies($0, toLanguage: language) }.flatMap(\.triggers))
            #expect(offered.isSuperset(of: peer.offered ?? []))
            #expect(offered.isDisjoint(with: peer.notOffered ?? []))
            #expect(library.scopes(forLanguage: language).isSuperset(of: peer.scopes ?? []))
        }
    }
}
