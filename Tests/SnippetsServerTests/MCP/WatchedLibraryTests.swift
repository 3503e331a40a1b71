import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// Files a test changes while a `WatchedLibrary` reads them.
private final class ChangingFiles: @unchecked Sendable {
    // Every access holds `lock`, so the loader's Dispatch thread and the test never race.
    private let lock = NSLock()
    private var files: [String: String]
    private var edits = 0
    private var modified = Date(timeIntervalSince1970: 0)

    init(_ files: [String: String]) { self.files = files }

    var current: [String: String] { lock.withLock { files } }
    /// One stamp per edit, as `DiskStamps` would see a changed size and time (an edit is modified now).
    var stamps: [String: FileStamp] { lock.withLock { ["/lib": FileStamp(size: edits, modified: modified)] } }

    func set(_ path: String, _ text: String) {
        lock.withLock {
            files[path] = text
            edits += 1
            modified = Date()
        }
    }
}

/// The MCP server's library: loaded as `serve` loads it, reloaded on a change, waited for as an event.
struct WatchedLibraryTests {
    private static let one = #"{"One": {"prefix": "one", "body": "first"}}"#
    private static let two = #"{"Two": {"prefix": "two", "body": "second"}}"#

    private func library(_ files: ChangingFiles, polling: Bool) -> WatchedLibrary {
        var stamps: (@Sendable ([String]) -> [String: FileStamp])? = nil
        if polling { stamps = { _ in files.stamps } }
        let load: @Sendable ([LibraryLayer], [String]) -> SnippetLibrary = { layers, _ in
            LibraryLoader(fileSystem: InMemoryFileSystem(files: files.current)).load(layers: layers)
        }
        var configuration = ServerConfiguration(
            defaultLibraryLayers: [LibraryLayer(path: "/lib")],
            loadLibrary: load,
            libraryStamps: stamps,
            pollInterval: .milliseconds(20),
            logError: { _ in })
        configuration.learningDisabled = true
        return WatchedLibrary(configuration: configuration)
    }

    @Test func reloadReturnsWhatIsOnDiskAfterTheCall() async {
        let files = ChangingFiles(["/lib/a.code-snippets": Self.one])
        let library = library(files, polling: false)
        await library.start()
        let first = await library.loaded(within: .seconds(30))
        #expect(first.library.snippets.map(\.title) == ["One"])
        files.set("/lib/b.code-snippets", Self.two)
        let next = await library.reload()
        #expect(next.generation > first.generation)
        #expect(next.library.snippets.map(\.title).sorted() == ["One", "Two"])
    }

    @Test func thePeriodicCheckLoadsAChangeAndWakesWhoWaits() async {
        let files = ChangingFiles(["/lib/a.code-snippets": Self.one])
        let library = library(files, polling: true)
        await library.start()
        let first = await library.loaded(within: .seconds(30))
        async let changed = library.snapshot(after: first.generation)
        files.set("/lib/a.code-snippets", Self.two)
        #expect(await changed.library.snippets.map(\.title) == ["Two"])
        await library.stop()
    }

    @Test func aCancelledWaitReturnsTheSnapshotInService() async {
        let library = library(ChangingFiles([:]), polling: false)
        let waiting = Task { await library.snapshot(after: 0) }
        waiting.cancel()
        #expect(await waiting.value.generation == 0)
    }
}
