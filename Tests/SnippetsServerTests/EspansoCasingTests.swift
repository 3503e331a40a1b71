import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

private let snippetCapabilities: JSONValue = ["textDocument": ["completion": ["completionItem": ["snippetSupport": true]]]]

/// espanso's `propagate_case`: a match's text takes the case its trigger is typed in (espanso/espanso 16e342f,
/// `espanso/src/cli/worker/engine/process/middleware/render/mod.rs` `calculate_casing_style`, and espanso-render's
/// `no_variable_capitalize`, `no_variable_capitalize_words`, `no_variable_uppercase`).
@Suite struct EspansoCasingTests {
    static func client(over text: String) async throws -> (client: TestClient, folder: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("espanso-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/match", withIntermediateDirectories: true)
        try text.write(toFile: folder + "/match/base.yml", atomically: true, encoding: .utf8)
        let client = TestClient(diskLibrary: [folder])
        try await client.initialize(capabilities: snippetCapabilities)
        return (client, folder)
    }

    /// The items completing at the end of `line` offers: label → inserted text, and whether the list is incomplete.
    static func offers(_ client: TestClient, _ line: String, file: String) async throws -> (items: [String: String], isIncomplete: Bool) {
        client.open("file:///w/\(file).txt", language: "plaintext", text: line)
        let list = try await client.complete("file:///w/\(file).txt", line: 0, character: line.utf16.count)
        var items: [String: String] = [:]
        for item in list.items {
            guard case .textEdit(let edit) = item.textEdit else { continue }
            items[item.label] = edit.newText
        }
        return (items, list.isIncomplete)
    }

    @Test func theTextTakesTheCaseTheTriggerIsTypedIn() async throws {
        let (client, folder) = try await Self.client(over: """
            matches:
              - trigger: ":sig"
                form: "best regards, [[name]]"
                propagate_case: true
              - trigger: ":ols"
                replace: "ordinary least squares, with other.punctuation !marks"
                propagate_case: true
                uppercase_style: capitalize_words
              - trigger: ":plain"
                replace: "as written"
            """)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cases: [(typed: String, label: String, text: String)] = [
            (":sig", ":sig", "best regards, ${1:name}"),
            (":Sig", ":Sig", "Best regards, ${1:name}"),
            (":SIG", ":SIG", "BEST REGARDS, ${1:NAME}"),
            (":S", ":SIG", "BEST REGARDS, ${1:NAME}"),  // one capital: espanso's default style, upper-case
            (":Ol", ":Ols", "Ordinary Least Squares, With Other.Punctuation !Marks"),
            (":O", ":Ols", "Ordinary Least Squares, With Other.Punctuation !Marks"),
            (":Pl", ":plain", "as written"),  // no propagate_case: as written
        ]
        for (number, item) in cases.enumerated() {
            let offers = try await Self.offers(client, item.typed, file: "c\(number)")
            #expect(offers.items[item.label] == item.text, "\(item.typed): \(offers.items)")
        }
    }

    /// Until two letters are typed the style can still change (`:S` upper-cases, `:Si` capitalizes), so the list
    /// says it is incomplete and the client asks again; after that it is complete.
    @Test func theListIsIncompleteWhileTheNextLetterCanChangeTheCase() async throws {
        let (client, folder) = try await Self.client(over: """
            matches:
              - trigger: ":sig"
                replace: "best regards"
                propagate_case: true
            """)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try await Self.offers(client, ":S", file: "a")
        #expect(first.items[":SIG"] == "BEST REGARDS")
        #expect(first.isIncomplete)
        let second = try await Self.offers(client, ":Si", file: "b")
        #expect(second.items[":Sig"] == "Best regards")
        #expect(!second.isIncomplete)
    }
}
