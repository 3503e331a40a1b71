import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// Wire kinds are numbers on the wire whatever their Swift type; a number the server does not name still decodes.
@Suite struct LSPKindsTests {
    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    @Test func kindsAreTheirNumbersOnTheWire() throws {
        #expect(try Self.json([InsertTextFormat.plainText, .snippet]) == "[1,2]")
        #expect(try Self.json([InsertTextMode.asIs, .adjustIndentation]) == "[1,2]")
        #expect(try Self.json(CompletionItemKind.snippet) == "15")
        #expect(try Self.json([FileChangeType.created, .changed, .deleted]) == "[1,2,3]")
    }

    @Test func librarySeveritiesMapToLSPSeverities() throws {
        let severities: [LibraryDiagnostic.Severity] = [.error, .warning, .note, .hint]
        #expect(try Self.json(severities.map(DiagnosticSeverity.init)) == "[1,2,3,4]")
    }

    @Test func anUnnamedFileChangeTypeStillDecodes() throws {
        let params = try JSONDecoder().decode(
            DidChangeWatchedFilesParams.self, from: Data(#"{"changes":[{"uri":"file:///a","type":7}]}"#.utf8))
        #expect(params.changes.map(\.type.rawValue) == [7])
    }
}
