import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// No Emacs Lisp from a yasnippet file is ever run: a library whose every Lisp construct would create a file if
/// evaluated is loaded, checked (`check`, `check --client` for every engine) and rendered for completion in every
/// engine, and no file appears; what an engine that runs code receives holds nothing it would run.
@Suite struct YasnippetSafetyTests {
    @Test func loadingCheckingAndRenderingRunNoEmacsLisp() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("yas-safety-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = ["backquoted", "mirror", "field", "choice", "condition", "env", "command", "setup"].map {
            directory.appendingPathComponent("made-\($0)").path
        }
        let mode = directory.appendingPathComponent("library/snippets/text-mode")
        try FileManager.default.createDirectory(at: mode, withIntermediateDirectories: true)
        try """
            # name: Everything Lisp
            # key: lisp
            # condition: (make-directory "\(made[4])")
            # expand-env: ((x (make-directory "\(made[5])")))
            # --
            A `(make-directory "\(made[0])")` ${1:one} ${1:$(make-directory "\(made[1])")}
            ${2:two$(make-directory "\(made[2])")} ${3:$$(progn (make-directory "\(made[3])") (yas-choose-value '("a" "b")))}
            """.write(to: mode.appendingPathComponent("lisp"), atomically: true, encoding: .utf8)
        try "# name: cmd\n# key: cmd\n# type: command\n# --\n(make-directory \"\(made[6])\")\n"
            .write(to: mode.appendingPathComponent("cmd"), atomically: true, encoding: .utf8)
        try "(make-directory \"\(made[7])\")".write(to: mode.appendingPathComponent(".yas-setup.el"), atomically: true, encoding: .utf8)
        let library = directory.appendingPathComponent("library").path

        let loaded = LibraryLoader(fileSystem: DiskFileSystem()).load(paths: [library])
        #expect(loaded.snippets.map(\.triggers) == [["lisp"]])
        let check = await runCommand(["check", "--library", library])
        #expect(check.out.contains("1 snippet"))
        #expect(check.out.contains("never run"))
        for name in KnownClient.checkableEngines.map(\.name) {
            let result = await runCommand(["check", "--library", library, "--client", name, "--json"])
            #expect(result.err.isEmpty, "\(name): \(result.err)")
        }
        let body = SnippetBody.parse(try #require(loaded.snippets.first).body).body
        for engine in KnownClient.checkableEngines {
            let name = engine.name
            let insertion = body.insertion(for: engine)
            #expect(!insertion.text.contains("make-directory"), "\(name): \(insertion.text)")
            if engine.guardsAgainstCode && insertion.isSnippet {
                #expect(!YasnippetReading.wouldEvaluate(insertion.text), "\(name): \(insertion.text)")
            }
        }
        #expect(made.filter { FileManager.default.fileExists(atPath: $0) } == [])
    }
}
