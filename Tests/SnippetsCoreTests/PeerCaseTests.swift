import Foundation
import Testing

@testable import SnippetsCore

/// The cases other implementations publish for the same grammar (VS Code, LuaSnip, Helix), run from
/// `Tests/Fixtures/snippet-peers/peer-cases.json`. Every expected value there is copied from the peer's own assertion
/// (each case names its file and test); where peers disagree, the fixture's `disagreements` says which one we follow.
@Suite struct PeerCaseTests {
    struct Fixture: Decodable {
        var cases: [PeerCase]
        var variables: [VariableCase]
        var disagreements: [Disagreement]
    }

    struct PeerCase: Decodable, CustomTestStringConvertible, Sendable {
        var origin: String
        var body: String
        var text: String?
        var layer: String
        var markers: [String]?
        var variables: [String: String]?
        var language: String?
        var testDescription: String { "\(origin): \(body.debugDescription)" }
    }

    struct VariableCase: Decodable, CustomTestStringConvertible, Sendable {
        struct Context: Decodable, Sendable {
            var filePath: String?
            var workspaceFolders: [String]?
            var lineText: String?
            var lineIndex: Int?
            var column: Int?
        }
        var origin: String
        var context: Context
        var name: String
        var value: String?
        var testDescription: String { "\(origin): \(name)" }
    }

    struct Disagreement: Decodable {
        var construct: String
        var peers: [String: String]
        var weFollow: String

        enum CodingKeys: String, CodingKey {
            case construct, peers
            case weFollow = "we follow"
        }
    }

    static let fixture: Fixture = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/snippet-peers/peer-cases.json")
        do {
            return try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
        } catch {
            fatalError("cannot read \(url.path): \(error)")
        }
    }()

    /// VS Code's marker names for our top-level nodes.
    static func marker(_ element: SnippetElement) -> String {
        switch element {
        case .text: "Text"
        case .tabstop, .placeholder, .choice, .transform(.tabstop, _): "Placeholder"
        case .variable, .transform(.variable, _): "Variable"
        }
    }

    @Test func fixtureCoversEachPeer() {
        let origins = Self.fixture.cases.map(\.origin) + Self.fixture.variables.map(\.origin)
        for peer in ["microsoft/vscode", "L3MON4D3/LuaSnip", "helix-editor/helix"] {
            #expect(origins.filter { $0.hasPrefix(peer) }.count >= 10, "\(peer)")
        }
        #expect(Self.fixture.disagreements.count >= 5)
        #expect(Self.fixture.disagreements.allSatisfy { !$0.weFollow.isEmpty && $0.peers.count >= 1 })
    }

    @Test(arguments: fixture.cases)
    func peerCase(_ peerCase: PeerCase) {
        let parse = SnippetBody.parse(peerCase.body)
        let body = parse.body
        if let markers = peerCase.markers {
            #expect(body.elements.map(Self.marker) == markers)
        }
        // What the server sends reads back as the same tree, whatever the case.
        #expect(SnippetBody.parse(body.lspText()).body == body)
        guard let expected = peerCase.text else { return }
        if peerCase.layer == "parser" {
            #expect(body.plainText(resolving: { _ in nil }, unknownVariablesAsNames: false) == expected)
            return
        }
        let values = peerCase.variables ?? [:]
        let context = SnippetVariableContext(languageID: peerCase.language)
        let resolve: (String) -> String? = { values[$0] ?? context.value(of: $0) }
        if peerCase.layer == "resolver" {
            #expect(body.plainText(resolving: resolve, unknownVariablesAsNames: false) == expected)
            return
        }
        #expect(body.plainText(resolving: resolve) == expected)
        // The snippet text a client gets inserts the same: VS Code resolving the variables itself, and a client
        // whose variables the server resolves. (Only real variables: a snippet client never sees values for
        // unknown names, which become placeholders.)
        guard values.keys.allSatisfy(SnippetVariables.isKnown) else { return }
        let forVSCode = SnippetBody.parse(body.insertText(for: .vscode)).body
        #expect(forVSCode.plainText(resolving: resolve) == expected, "as sent to VS Code")
        let resolvedHere = SnippetBody.parse(body.insertText(for: .generic, resolving: resolve)).body
        #expect(resolvedHere.plainText() == expected, "as sent with variables resolved by the server")
    }

    @Test(arguments: fixture.variables)
    func peerVariable(_ variable: VariableCase) {
        let context = SnippetVariableContext(
            filePath: variable.context.filePath, workspaceFolders: variable.context.workspaceFolders ?? [],
            lineText: variable.context.lineText, lineIndex: variable.context.lineIndex,
            cursorUTF16Column: variable.context.column)
        #expect(context.value(of: variable.name) == variable.value)
    }
}
