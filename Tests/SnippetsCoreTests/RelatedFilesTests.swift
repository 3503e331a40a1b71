import Foundation
import Testing

@testable import SnippetsCore

/// A file system that counts each path's reads.
private final class CountingFileSystem: LibraryFileSystem, @unchecked Sendable {  // `counts` only under `lock`.
    let base: InMemoryFileSystem
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    init(files: [String: String]) { base = InMemoryFileSystem(files: files) }

    func reads(of path: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return counts[path, default: 0]
    }

    private func count(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        counts[path, default: 0] += 1
    }

    func item(at path: String) -> FileSystemItem { base.item(at: path) }
    func contentsOfDirectory(at path: String) throws -> [String] { try base.contentsOfDirectory(at: path) }
    func contents(of path: String) throws -> [UInt8] {
        count(path)
        return try base.contents(of: path)
    }
    func contents(of path: String, maximumSize: Int) throws -> [UInt8] {
        count(path)
        return try base.contents(of: path, maximumSize: maximumSize)
    }
    func canonicalPath(of path: String) -> String? { base.canonicalPath(of: path) }
    func identity(of path: String) -> String? { base.identity(of: path) }
}

/// A file other than the one being read (an espanso package's `_manifest.yml`, an import) is read and parsed at
/// most once per load, however many files name it: the work is linear in the files, not their product.
@Suite struct RelatedFilesTests {
    @Test func aManifestAndAnImportSharedBy200FilesAreReadOncePerLoad() {
        var files = [
            "/esp/match/packages/big/_manifest.yml": "name: big\ntitle: Big\n" + String(repeating: "# padding\n", count: 5_000),
            "/esp/match/packages/big/_vars.yml": "global_vars:\n  - name: who\n    type: echo\n    params:\n      echo: Ada\n",
        ]
        for number in 0..<200 {
            files["/esp/match/packages/big/f\(number).yml"] =
                "imports:\n  - _vars.yml\nmatches:\n  - trigger: \":f\(number)\"\n    replace: \"hi {{who}}\"\n"
        }
        let fileSystem = CountingFileSystem(files: files)
        let library = LibraryLoader(fileSystem: fileSystem).load(paths: ["/esp"])
        #expect(library.snippets.count == 200)
        #expect(library.snippets.allSatisfy { $0.body == "hi Ada" && $0.description == "From the espanso package big." })
        #expect(fileSystem.reads(of: "/esp/match/packages/big/_manifest.yml") == 1)
        #expect(fileSystem.reads(of: "/esp/match/packages/big/_vars.yml") == 1)
        // A second load reads them again (a change between loads is seen), once.
        _ = LibraryLoader(fileSystem: fileSystem).load(paths: ["/esp"])
        #expect(fileSystem.reads(of: "/esp/match/packages/big/_manifest.yml") == 2)
    }

    @Test func eachPathIsParsedOnceWhateverTheReadersAsk() {
        let related = RelatedFiles { _ in .text("name: x\n", canonicalPath: "/m") }
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            _ = related.yaml("/m")
            _ = related.file("/m")
        }
        #expect(related.counts.reads == 1)
        #expect(related.counts.parses == 1)
    }
}
