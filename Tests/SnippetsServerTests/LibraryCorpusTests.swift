import Foundation
import SnippetsCore
import TestSupport
import Testing
@testable import SnippetsServer

/// Loads the shared corpora (`../shared/corpora` from the package root) from disk, as a user's library would be.
@Suite struct LibraryCorpusTests {
    static let corpora = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpora").path
    static let isPresent = FileManager.default.fileExists(atPath: corpora)

    /// Loaded on a thread of its own: a corpus load computes for seconds (see `onOwnThread`).
    func load(_ name: String) async -> SnippetLibrary {
        await Self.load(paths: [Self.corpora + "/" + name])
    }

    static func load(paths: [String]) async -> SnippetLibrary {
        await onOwnThread { LibraryLoader(fileSystem: DiskFileSystem()).load(paths: paths) }
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

    @Test(.enabled(if: isPresent, "../shared/corpora is absent")) func espansoCorporaLoadWithExactLocations() async throws {
        // Triggers: PyYAML counts 53,975 `trigger`s and `triggers` items in the hub's loaded matches (16 in the personal
        // one); each regex with a literal start adds it (19 and 1).
        for (name, snippets, files, triggerCount) in [("espanso-hub", 41_478, 222, 53_994), ("personal-espanso", 16, 1, 17)] {
            let library = await load(name)
            // The counts PyYAML gives (Tests/e2e/test_espanso.py compares them file by file).
            #expect(library.snippets.count == snippets, "\(name)")
            #expect(library.files.count == files, "\(name)")
            #expect(library.diagnostics.filter { $0.severity == .error }.isEmpty, "\(name)")
            #expect(library.snippets.allSatisfy { $0.format == .espanso && $0.scopes.isEmpty })
            var codes: [String: Int] = [:]
            for diagnostic in library.diagnostics { codes[diagnostic.code.rawValue, default: 0] += 1 }
            let triggers = library.snippets.reduce(0) { $0 + $1.triggers.count }
            #expect(triggers == triggerCount, "\(name)")
            print("\(name): \(library.snippets.count) snippets, \(triggers) triggers, in \(library.files.count) files; \(codes.sorted { $0.key < $1.key })")
            // Every location covers exactly one match entry: read back from the file (indented as it stands there),
            // it is a mapping whose trigger (or regex, or label) is the snippet's.
            let misplaced = try await onOwnThread { try Self.misplacedEspansoEntries(in: library) }
            if !misplaced.isEmpty { print("misplaced:", misplaced.prefix(8)) }
            #expect(misplaced.isEmpty)
        }
    }

    /// Each snippet whose location does not cover exactly its own match entry, read back from the file.
    static func misplacedEspansoEntries(in library: SnippetLibrary) throws -> [String] {
        var misplaced: [String] = []
        var tables: [String: LineTable] = [:]
        for snippet in library.snippets {
            let uri = snippet.location.uri
            if tables[uri] == nil {
                tables[uri] = LineTable(try String(contentsOfFile: DocumentURI(uri).displayPath, encoding: .utf8))
            }
            let table = tables[uri]!
            let range = snippet.location.range
            let located = table.slice(
                table.utf8Offset(line: range.start.line, column: range.start.utf8Column, in: .utf8)
                    ..< table.utf8Offset(line: range.end.line, column: range.end.utf8Column, in: .utf8))
            let text = String(repeating: " ", count: range.start.utf8Column) + located
            guard case .success(let entry?) = YAML.parse(Array(text.utf8)), entry.members != nil else {
                misplaced.append("\(snippet.location.pathAndLine): not one entry")
                continue
            }
            let first = entry.member("trigger")?.value.string ?? entry.member("triggers")?.value.items?.first?.string
            let named = first ?? entry.member("regex")?.value.string ?? entry.member("label")?.value.string
            // A regex match is placed by its note, which points at the regex inside the entry.
            let regexNoted = entry.member("regex") != nil && library.diagnostics.contains {
                $0.code == .espansoRegex && $0.uri == snippet.location.uri
                    && $0.position >= snippet.location.range.start && $0.position <= snippet.location.range.end
            }
            if named == nil || !(snippet.triggers.first == first || (first == nil && regexNoted)) {
                misplaced.append("\(snippet.location.pathAndLine): \(named ?? "?") is not \(snippet.triggers)")
            }
        }
        return misplaced
    }

    @Test(.enabled(if: isPresent, "../shared/corpora is absent")) func friendlySnippetsLoadThroughTheirManifest() async throws {
        let library = await load("friendly-snippets")
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

    @Test(.enabled(if: isPresent, "../shared/corpora is absent")) func vimSnippetsLoadWithTheirScopes() async throws {
        let library = await load("vim-snippets")
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
        // A `$` vim-snipmate drops (`$this`, `$.ajax`) is kept as written and noted once per body.
        #expect(library.diagnostics.filter { $0.code == .snipmateDollar && $0.severity == .note }.count == 313)
        // Exact ranges: header line to the last body line, read back from the file.
        let file = try String(contentsOfFile: Self.corpora + "/vim-snippets/snippets/_.snippets", encoding: .utf8)
        let lines = file.components(separatedBy: "\n")
        let copyright = try #require(global.first { $0.triggers == ["c)"] })
        #expect(lines[copyright.location.range.start.line] == "snippet c)")
        #expect(copyright.location.range.start.utf8Column == 0)
        #expect(try locatedText(copyright) == Substring(lines[copyright.location.range.start.line...copyright.location.range.end.line].joined(separator: "\n")))
        #expect(lines[copyright.location.range.end.line].utf8.count == copyright.location.range.end.utf8Column)
    }

    @Test(.enabled(if: isPresent, "../shared/corpora is absent")) func personalLibraryIsGlobalAndClean() async {
        let library = await load("personal")
        #expect(library.snippets.count == 46)
        #expect(library.diagnostics.isEmpty)
        #expect(library.snippets.allSatisfy { $0.isGlobal })
        #expect(library.snippets.first?.title == "Invoice footer")
        #expect(library.snippets.first?.location.range.start == SourcePosition(line: 1, asciiColumn: 2))
    }

    @Test(.enabled(if: isPresent, "../shared/corpora is absent")) func allThreeTogether() async {
        let library = await Self.load(paths: ["friendly-snippets", "vim-snippets", "personal"].map { Self.corpora + "/" + $0 })
        #expect(library.snippets.count == 6_168 + 6_923 + 46)
        #expect(library.loaderDiagnostics.isEmpty)
    }

    /// The first completion's load (`load(layers:language:)`) serves each language exactly as the whole library
    /// does, with every format's way of naming languages (manifests, file names, `extends`, `.yas-parents`).
    @Test(.enabled(if: isPresent, "../shared/corpora is absent")) func aLanguagesFilesServeItAsTheWholeCorporaDo() async {
        let layers = ["personal", "friendly-snippets", "vim-snippets", "ultisnips", "yasnippet-snippets"].map {
            LibraryLayer(path: Self.corpora + "/" + $0, name: $0)
        }
        let whole = await onOwnThread { LibraryLoader(fileSystem: DiskFileSystem()).load(layers: layers) }
        for language in ["python", "javascriptreact", "typescript", "cpp", "c++", "go", "markdown", "html", "elisp", "ruby"] {
            let partial = await onOwnThread { LibraryLoader(fileSystem: DiskFileSystem()).load(layers: layers, language: language) }
            func served(_ library: SnippetLibrary) -> [SnippetID] {
                library.snippets.filter { library.applies($0, toLanguage: language) }.map(\.id)
            }
            #expect(served(partial) == served(whole), "\(language)")
            #expect(partial.files.count < whole.files.count, "\(language)")
        }
    }
}
