import Foundation
import Testing

@testable import SnippetsCore

/// A file system that counts each path's reads.
private final class CountingFileSystem: LibraryFileSystem, @unchecked Sendable {  // `counts` only under `lock`.
    let base: InMemoryFileSystem
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    init(files: [String: String], links: [String: String] = [:]) { base = InMemoryFileSystem(files: files, links: links) }

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

    /// A match file that other files import is a snippet file of its own too: it was read and parsed once as itself
    /// and once more as an import. Now once in all, under any name a link gives it.
    @Test func aMatchFileOthersImportIsReadOncePerLoad() {
        var files = [
            "/esp/match/base.yml": "global_vars:\n  - name: who\n    type: echo\n    params:\n      echo: Ada\nmatches:\n  - trigger: \":base\"\n    replace: \"base {{who}}\"\n",
        ]
        for number in 0..<50 {
            // Half name it directly, half through a link to its folder.
            let named = number % 2 == 0 ? "base.yml" : "same/base.yml"
            files["/esp/match/f\(number).yml"] =
                "imports:\n  - \(named)\nmatches:\n  - trigger: \":f\(number)\"\n    replace: \"hi {{who}}\"\n"
        }
        let fileSystem = CountingFileSystem(files: files, links: ["/esp/match/same": "."])
        let library = LibraryLoader(fileSystem: fileSystem).load(paths: ["/esp"])
        #expect(library.snippets.count == 51)
        #expect(library.snippets.allSatisfy { $0.body == "hi Ada" || $0.body == "base Ada" })
        #expect(fileSystem.reads(of: "/esp/match/base.yml") + fileSystem.reads(of: "/esp/match/same/base.yml") == 1)
    }

    @Test func aFileReadAsItselfAndAsAnImportIsReadAndParsedOnceInEitherOrder() {
        for importedFirst in [true, false] {
            let related = RelatedFiles(read: { _ in .text("name: x\n", canonicalPath: "/m") }, resolve: { _ in "/m" })
            if importedFirst { _ = related.yaml("/link-to-m") }
            let bytes = (try? related.ownBytes("/m") { Array("name: x\n".utf8) }) ?? []
            _ = related.ownYAML("/m", text: String(decoding: bytes, as: UTF8.self), bytes: bytes)
            if !importedFirst { _ = related.yaml("/link-to-m") }
            #expect(related.counts.reads == 1, "imported first: \(importedFirst)")
            #expect(related.counts.parses == 1, "imported first: \(importedFirst)")
        }
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
