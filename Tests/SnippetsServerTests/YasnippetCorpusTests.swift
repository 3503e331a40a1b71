import Foundation
import SnippetsCore
import TestSupport
import Testing

@testable import SnippetsServer

/// The shared yasnippet corpus (AndreaCrotti/yasnippet-snippets, `../shared/corpora/yasnippet-snippets`) loaded from
/// disk, checked against counts this test makes itself by reading the files.
@Suite struct YasnippetCorpusTests {
    static let corpus = LibraryCorpusTests.corpora + "/yasnippet-snippets"
    static let isPresent = FileManager.default.fileExists(atPath: corpus)

    /// What the corpus holds, counted from the files without the reader.
    struct Census {
        /// Files in the mode folders (and their group folders), hidden ones excepted.
        var files = 0
        /// Of those, files whose template (after a `# --` line) is blank.
        var blank = 0
        var parentsFiles = 0
        var headers: [String: Int] = [:]
        /// Backquoted expressions in templates (an unescaped backquote to the next).
        var backquotes = 0
    }

    static func census() throws -> Census {
        var census = Census()
        let root = corpus + "/snippets"
        for mode in try FileManager.default.contentsOfDirectory(atPath: root) {
            let folder = root + "/" + mode
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            guard let walker = FileManager.default.enumerator(atPath: folder) else { continue }
            for case let relative as String in walker {
                let path = folder + "/" + relative
                let name = (relative as NSString).lastPathComponent
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
                if name == ".yas-parents" { census.parentsFiles += 1 }
                if name.hasPrefix(".") { continue }
                census.files += 1
                let text = try String(contentsOfFile: path, encoding: .utf8)
                let lines = text.components(separatedBy: "\n")
                var template = text
                if let separator = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespacesAndNewlines) == "# --" }),
                    separator < lines.count - 1
                {
                    for line in lines[..<separator] where line.hasPrefix("#") {
                        let parts = line.dropFirst().split(separator: ":", maxSplits: 1)
                        if parts.count == 2 { census.headers[parts[0].trimmingCharacters(in: .whitespaces), default: 0] += 1 }
                    }
                    template = lines[(separator + 1)...].joined(separator: "\n")
                }
                if template.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { census.blank += 1 }
                // Backquote pairs not preceded by a backslash.
                var open = false
                var previous: Character = " "
                for character in template {
                    if character == "`" && previous != "\\" {
                        if open { census.backquotes += 1 }
                        open.toggle()
                    }
                    previous = character
                }
            }
        }
        return census
    }

    @Test(.enabled(if: isPresent, "../shared/corpora/yasnippet-snippets is absent"))
    func loadsEverySnippetFileAndNotesEveryConstructAtItsPlace() async throws {
        // Both on a thread of their own: they compute for seconds (see `onOwnThread`).
        let census = try await onOwnThread { try Self.census() }
        let library = await onOwnThread { LibraryLoader(fileSystem: DiskFileSystem()).load(paths: [Self.corpus]) }
        #expect(census.files == 2_387)
        #expect(library.snippets.count == census.files - census.blank)
        #expect(library.files.count == census.files + census.parentsFiles)
        #expect(library.loaderDiagnostics.isEmpty)
        #expect(Set(library.snippets.map(\.id)).count == library.snippets.count)
        #expect(library.snippets.allSatisfy { $0.format == .yasnippet })

        // Well-formed entries report no problems: everything is a note, but the blank template.
        let problems = library.diagnostics.filter { $0.severity != .note && $0.severity != .hint }
        #expect(problems.map(\.code.rawValue) == Array(repeating: "empty-body", count: census.blank), "\(problems.prefix(5))")
        var counts: [String: Int] = [:]
        for diagnostic in library.diagnostics { counts[diagnostic.code.rawValue, default: 0] += 1 }
        print("yasnippet corpus: \(library.snippets.count) snippets, \(library.files.count) files; notes per construct: \(counts.sorted { $0.key < $1.key })")
        #expect(counts["emacs-lisp-expand-env"] == census.headers["expand-env"])
        #expect(counts["emacs-lisp-condition"] == census.headers["condition"])
        #expect(counts["yasnippet-binding"] == census.headers["binding"])
        #expect(counts["emacs-lisp-backquote"] == census.backquotes)
        #expect((counts["emacs-lisp-mirror"] ?? 0) > 0 && (counts["yasnippet-choice"] ?? 0) > 0)

        // Every note points at the construct it names.
        var texts: [String: LineTable] = [:]
        for diagnostic in library.diagnostics where diagnostic.severity == .note {
            let path = DocumentURI(diagnostic.uri).displayPath
            if texts[path] == nil {
                texts[path] = LineTable(try String(contentsOfFile: path, encoding: .utf8))
            }
            let line = try #require(texts[path]?.content(ofLine: diagnostic.position.line))
            let rest = line.utf8.dropFirst(diagnostic.position.utf8Column)
            let at = String(decoding: rest.prefix(2), as: UTF8.self)
            switch diagnostic.code.rawValue {
            case "emacs-lisp-backquote": #expect(at.hasPrefix("`"), "\(path):\(diagnostic.position.line + 1)")
            case "emacs-lisp-mirror", "emacs-lisp-field", "yasnippet-choice": #expect(at.hasPrefix("$"), "\(path):\(diagnostic.position.line + 1)")
            case "yasnippet-indent-marker": #expect(at == "$>", "\(path):\(diagnostic.position.line + 1)")
            case "emacs-lisp-condition", "emacs-lisp-expand-env":
                let name = line.dropFirst().drop { $0 == " " }.prefix { $0 != " " && $0 != ":" }
                #expect(line.hasPrefix("#") && (name == "condition" || name == "expand-env"), "\(line)")
                #expect(!at.hasPrefix(" ") && !at.isEmpty)
            case "yasnippet-binding": #expect(line.hasPrefix("#") && line.contains("binding"))
            default: Issue.record("unexpected note \(diagnostic.code) at \(path)")
            }
        }

        // Modes as languages, parents as extensions.
        let python = library.snippets.filter { $0.location.uri.contains("/python-mode/") }
        #expect(!python.isEmpty && python.allSatisfy { $0.scopes == ["python"] })
        #expect(library.scopes(forLanguage: "python").contains("prog-mode"))
        #expect(library.scopes(forLanguage: "cpp").isSuperset(of: ["cc-mode", "c-lang-common", "prog-mode"]))
        #expect(library.scopes(forLanguage: "c++").isSuperset(of: ["cc-mode", "c-lang-common"]))
        #expect(library.scopes(forLanguage: "typescriptreact").isSuperset(of: ["typescript", "javascript"]))
        let fundamental = library.snippets.filter { $0.location.uri.contains("/fundamental-mode/") }
        #expect(fundamental.count == 3 && fundamental.allSatisfy(\.isGlobal))
        // No Lisp survives conversion: what an Emacs client receives holds nothing yasnippet would run, and no
        // body needs plain text to get there (escaping suffices).
        for snippet in library.snippets {
            let insertion = SnippetBody.parse(snippet.body).body.insertion(for: .yasnippet)
            #expect(insertion.isSnippet && !YasnippetReading.wouldEvaluate(insertion.text), "\(snippet.location.pathAndLine)")
        }
    }
}
