import Foundation
import Testing

@testable import SnippetsCore

/// Parses every body of the friendly-snippets corpus: nothing crashes, re-serializing is stable, and the problems
/// found are counted by code (printed, so grammar changes show their effect on real snippets).
@Suite struct BodyCorpusTests {
    /// `../shared/corpora/friendly-snippets/snippets` from the package root.
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/corpora/friendly-snippets/snippets").standardizedFileURL

    static var corpusIsPresent: Bool { FileManager.default.fileExists(atPath: corpus.path) }

    /// Every snippet body of one decoded file (`body` is a string or an array of lines).
    private static func bodies(in object: Any) -> [String] {
        guard let entries = object as? [String: Any] else { return [] }
        return entries.values.compactMap { entry in
            guard let body = (entry as? [String: Any])?["body"] else { return nil }
            if let text = body as? String { return text }
            if let lines = body as? [Any] { return lines.map { "\($0)" }.joined(separator: "\n") }
            return nil
        }
    }

    @Test(.enabled(if: corpusIsPresent, "friendly-snippets corpus not found at ../shared/corpora; skipped"))
    func everyFriendlySnippetsBodyParsesAndRoundTrips() throws {
        let files =
            (FileManager.default.enumerator(at: Self.corpus, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "json" } ?? [])
            .sorted { $0.path < $1.path }
        var rejectedFiles: [String] = []
        var bodyCount = 0
        var problemCounts: [String: Int] = [:]
        var unknownNames: [String: Int] = [:]
        var unstable: [String] = []
        for file in files {
            let data = try Data(contentsOf: file)
            guard let object = try? JSONSerialization.jsonObject(with: data) else {
                rejectedFiles.append(file.lastPathComponent)
                continue
            }
            for text in Self.bodies(in: object) {
                bodyCount += 1
                let parse = SnippetBody.parse(text)
                // What a library load checks (without the elements' text) finds exactly the same problems.
                #expect(SnippetBody.problems(in: text) == parse.problems, "\(text.debugDescription)")
                for problem in parse.problems {
                    problemCounts[problem.code.rawValue, default: 0] += 1
                    if problem.code == DiagnosticCode.unknownVariable {
                        let units = Array(text.utf16)[(problem.utf16Offset + 1)...]
                        let name = String(
                            decoding: units.drop { $0 == SnippetASCII.braceOpen }
                                .prefix { SnippetASCII.isNameContinue($0) }, as: UTF16.self)
                        unknownNames[name, default: 0] += 1
                    }
                }
                let serialized = parse.body.lspText()
                if SnippetBody.parse(serialized).body != parse.body || parse.body.lspText() != serialized {
                    unstable.append(text)
                }
                _ = parse.body.plainText()
                _ = parse.body.markdownPreview(language: "swift")
            }
        }
        print(
            "friendly-snippets: \(files.count) files, \(rejectedFiles.count) rejected by JSONSerialization "
                + "\(rejectedFiles), \(bodyCount) bodies, \(unstable.count) unstable round trips")
        print(
            "problems by code: "
                + problemCounts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                .joined(separator: " "))
        print(
            "most frequent unknown variables: "
                + unknownNames.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
                .prefix(12).map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        #expect(files.count > 100)
        #expect(bodyCount > 5000)
        #expect(unstable.isEmpty, "bodies whose lspText does not re-parse to the same tree: \(unstable.prefix(5))")
    }
}
