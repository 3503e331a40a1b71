import Foundation
import SnippetsCore
import Testing
@testable import SnippetsServer

/// Loads the shared corpora (`../shared/corpora` from the package root) from disk, as a user's library would be.
@Suite struct LibraryCorpusTests {
    static let corpora = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpora").path
    static let isPresent = FileManager.default.fileExists(atPath: corpora)

    func load(_ name: String) -> SnippetLibrary {
        LibraryLoader(fileSystem: DiskFileSystem()).load(paths: [Self.corpora + "/" + name])
    }

    /// The text a snippet's location covers, read from the file on disk.
    func locatedText(_ snippet: Snippet) throws -> Substring {
        let text = try String(contentsOfFile: DocumentURI(snippet.location.uri).displayPath, encoding: .utf8)
        let table = LineTable(text)
        let range = snippet.location.range
        let start = table.utf8Offset(line: range.start.line, column: range.start.utf8Column, in: .utf8)
        let end = table.utf8Offset(line: range.end.line, column: range.end.utf8Column, in: .utf8)
        return table.slice(start..<end)
    }

    @Test(.enabled(if: isPresent, "../shared/corpora is absent")) func friendlySnippetsLoadThroughTheirManifest() throws {
        let library = load("friendly-snippets")
        #expect(library.snippets.count == 6_168)
        #expect(library.files.count == 143)
        #expect(library.diagnostics.filter { $0.severity == .error }.isEmpty)
        #expect(library.loaderDiagnostics.isEmpty)
        #expect(Set(library.snippets.map(\.id)).count == 6_168)
        let csharp = try #require(library.files.first { $0.path.hasSuffix("/snippets/csharp/csharp.json") })
        #expect(csharp.snippets.first?.scopes == ["csharp", "cs"])
        // Every location starts at its key's opening quote and ends at its object's closing brace.
        for snippet in library.snippets.filter({ $0.scopes.first == "go" }) {
            let text = try locatedText(snippet)
            let key = String(text.prefix { $0 != ":" })
            #expect(key.hasPrefix("\"") && key.hasSuffix("\"") && text.hasSuffix("}"), "\(snippet.title): \(text.prefix(60))")
        }
        // One exact range, checked against the file's own lines.
        let file = try String(contentsOfFile: Self.corpora + "/friendly-snippets/snippets/go.json", encoding: .utf8)
        let lines = file.components(separatedBy: "\n")
        let snippet = try #require(library.snippets.first { $0.scopes == ["go"] })
        let line = snippet.location.range.start.line
        #expect(lines[line].dropFirst(snippet.location.range.start.utf8Column).hasPrefix("\"\(snippet.title)\""))
    }

    @Test(.enabled(if: isPresent, "../shared/corpora is absent")) func vimSnippetsLoadWithTheirScopes() throws {
        let library = load("vim-snippets")
        #expect(library.snippets.count == 6_923)
        #expect(library.files.count == 138)
        let global = library.snippets.filter { $0.location.uri.hasSuffix("/_.snippets") }
        #expect(!global.isEmpty && global.allSatisfy { $0.isGlobal })
        #expect(library.scopes(forLanguage: "cpp").contains("c"))
        #expect(library.scopes(forLanguage: "vue").isSuperset(of: ["html", "javascript", "css"]))
        let node = try #require(library.files.first { $0.path.hasSuffix("/javascript/javascript.node.snippets") })
        #expect(node.snippets.allSatisfy { $0.scopes == ["javascript"] })
        // Converted bodies: VISUAL, dates, and backticks that never run.
        let date = try #require(global.first { $0.triggers == ["date"] })
        #expect(date.body == "${CURRENT_YEAR}-${CURRENT_MONTH}-${CURRENT_DATE}")
        // `{VISUAL}` (parser version 0) is literal text in version 1; no `$VISUAL` / `${VISUAL` survives.
        #expect(library.snippets.allSatisfy { !$0.body.replacingOccurrences(of: "\\$", with: "").contains("$VISUAL") })
        #expect(library.snippets.allSatisfy { !$0.body.contains("${VISUAL") })
        #expect(library.snippets.contains { $0.body.contains("TM_SELECTED_TEXT") })
        let notes = library.diagnostics.filter { $0.code.rawValue == "backtick-expression" }
        #expect(notes.count == 271)
        #expect(notes.allSatisfy { $0.severity == .note })
        // Exact ranges: header line to the last body line, read back from the file.
        let file = try String(contentsOfFile: Self.corpora + "/vim-snippets/snippets/_.snippets", encoding: .utf8)
        let lines = file.components(separatedBy: "\n")
        let copyright = try #require(global.first { $0.triggers == ["c)"] })
        #expect(lines[copyright.location.range.start.line] == "snippet c)")
        #expect(copyright.location.range.start.utf8Column == 0)
        #expect(try locatedText(copyright) == Substring(lines[copyright.location.range.start.line...copyright.location.range.end.line].joined(separator: "\n")))
        #expect(lines[copyright.location.range.end.line].utf8.count == copyright.location.range.end.utf8Column)
    }

    @Test(.enabled(if: isPresent, "../shared/corpora is absent")) func personalLibraryIsGlobalAndClean() {
        let library = load("personal")
        #expect(library.snippets.count == 46)
        #expect(library.diagnostics.isEmpty)
        #expect(library.snippets.allSatisfy { $0.isGlobal })
        #expect(library.snippets.first?.title == "Invoice footer")
        #expect(library.snippets.first?.location.range.start == SourcePosition(line: 1, asciiColumn: 2))
    }

    @Test(.enabled(if: isPresent, "../shared/corpora is absent")) func allThreeTogether() {
        let library = LibraryLoader(fileSystem: DiskFileSystem()).load(
            paths: ["friendly-snippets", "vim-snippets", "personal"].map { Self.corpora + "/" + $0 })
        #expect(library.snippets.count == 6_168 + 6_923 + 46)
        #expect(library.loaderDiagnostics.isEmpty)
    }
}
