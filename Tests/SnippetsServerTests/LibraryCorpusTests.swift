import Foundation
import SnippetsCore
import Testing
@testable import SnippetsServer

/// Loads the shared corpora (`../shared/corpora` from the package root) from disk, as a user's library.
@Suite struct LibraryCorpusTests {
    static let corpora = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpora").path

    @Test func probe() {
        for name in ["friendly-snippets", "vim-snippets", "personal"] {
            let library = LibraryLoader(fileSystem: DiskFileSystem()).load(paths: [Self.corpora + "/" + name])
            var codes: [String: Int] = [:]
            for d in library.diagnostics { codes[d.severity.rawValue + ":" + d.code, default: 0] += 1 }
            print("PROBE", name, library.snippets.count, library.files.count, codes.sorted { $0.key < $1.key })
            for d in library.diagnostics.filter({ $0.severity != .note }).prefix(8) { print("PROBE  ", d.uri.suffix(40), d.position.line + 1, d.code, d.message) }
        }
    }
}
