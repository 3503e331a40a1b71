import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

private let libraryURI = "file:///lib/test.code-snippets"
private let watchCapabilities: JSONValue = ["workspace": ["didChangeWatchedFiles": ["dynamicRegistration": true]]]

/// Library edits are picked up without a restart; a broken file keeps its last good snippets.
struct ReloadTests {
    private func labels(_ client: TestClient, typing text: String) async throws -> [String] {
        client.open("file:///w/\(text).txt", language: "plaintext", text: text)
        return try await client.complete("file:///w/\(text).txt", line: 0, character: text.utf16.count).items.map(\.label)
    }

    @Test func watchedFileChangeReloadsAndBrokenFileKeepsLastGoodSnippetsWithDiagnostics() async throws {
        let library = TestLibrary([makeFile([makeSnippet("Hello", triggers: ["hello"], body: "hello()")])])
        let client = TestClient(library: library)
        try await client.initialize(capabilities: watchCapabilities)

        // The server asks the client to watch the library directory.
        let registration = try #require(await client.notification("client/registerCapability"))
        let registered = registration["registrations"]?.arrayValue?.first
        #expect(registered?["method"] == "workspace/didChangeWatchedFiles")
        #expect(registered?["registerOptions"]?["watchers"]?.arrayValue?.first?["globPattern"] == "/lib/**/*")

        client.open(libraryURI, language: "json", text: "{}")

        // Break the file: the snippet stays, the problem is published on the open file.
        let problem = LibraryDiagnostic(
            uri: libraryURI, position: SourcePosition(line: 3, utf8Column: 8, utf16Column: 6, scalarColumn: 5),
            severity: .error, code: .jsonSyntax, message: "expected ',' or '}'")
        library.put(makeFile([], diagnostics: [problem]))
        client.notify("workspace/didChangeWatchedFiles", ["changes": [["uri": .string(libraryURI), "type": 2]]])
        let loaded = try await client.nextLoad()
        #expect(loaded.contains("1 file has errors (the last good snippets of each stay in service)"))
        let published = try #require(await client.notification("textDocument/publishDiagnostics"))
        #expect(published["uri"] == .string(libraryURI))
        let diagnostic = published["diagnostics"]?.arrayValue?.first
        #expect(diagnostic?["message"] == "expected ',' or '}'")
        #expect(diagnostic?["severity"] == 1)
        #expect(diagnostic?["range"]?["start"] == ["line": 3, "character": 6])
        #expect(try await labels(client, typing: "hel") == ["hello"])

        // Fix it with a new snippet: the new one is served and the diagnostics are cleared.
        library.put(makeFile([makeSnippet("Help", triggers: ["help"], body: "help()")]))
        client.notify("workspace/didChangeWatchedFiles", ["changes": [["uri": .string(libraryURI), "type": 2]]])
        try await client.nextLoad()
        let cleared = try #require(await client.notification("textDocument/publishDiagnostics"))
        #expect(cleared["diagnostics"] == [])
        #expect(try await labels(client, typing: "hel") == ["help"])
    }

    @Test func withoutClientWatchingThePeriodicCheckPicksUpEdits() async throws {
        let library = TestLibrary([makeFile([makeSnippet("Hello", triggers: ["hello"], body: "hello()")])])
        let client = TestClient(library: library, polling: true)
        try await client.initialize()
        #expect(try await labels(client, typing: "wor").isEmpty)
        library.put(makeFile([makeSnippet("World", triggers: ["world"], body: "world()")], uri: "file:///lib/more.code-snippets"))
        try await client.nextLoad()
        #expect(try await labels(client, typing: "wor") == ["world"])
    }

    /// A check that waits without working (a library on a network disk, whose stat waits on the network, or a
    /// machine whose cores are busy with other work) is not taken for a costly one: the checks are spaced by the
    /// processor time they cost, so an edit is still seen at once, not minutes later. Each check here waits 400 ms,
    /// which spaced by its duration would be 160 s, longer than a test waits.
    @Test func aCheckThatWaitsWithoutWorkingDoesNotSpaceTheChecksOut() async throws {
        let library = TestLibrary([makeFile([makeSnippet("Hello", triggers: ["hello"], body: "hello()")])])
        let checksDone = DispatchSemaphore(value: 0)
        let client = TestClient(library: library, polling: true) { configuration in
            let stamps = configuration.libraryStamps
            configuration.libraryStamps = { paths in
                Thread.sleep(forTimeInterval: 0.4)
                defer { checksDone.signal() }
                return stamps?(paths) ?? [:]
            }
        }
        try await client.initialize()
        #expect(try await labels(client, typing: "wor").isEmpty)
        // The edit comes after the first walk and one periodic check: the next check is spaced by that check's cost.
        for _ in 0..<2 {
            #expect(await LibraryService.offCooperativeThreads { checksDone.wait(timeout: .now() + 120) } == .success)
        }
        library.put(makeFile([makeSnippet("World", triggers: ["world"], body: "world()")], uri: "file:///lib/more.code-snippets"))
        try await client.nextLoad()
        #expect(try await labels(client, typing: "wor") == ["world"])
    }

    /// The spacing of the periodic check: the poll interval for a cheap check, 400 times the cost of a costly one,
    /// and never so long that an edit waits more than half a minute.
    @Test func theCheckIsSpacedByItsCostWithinBounds() {
        let interval = Duration.milliseconds(2000)
        #expect(LibraryService.checkInterval(after: .microseconds(300), atLeast: interval) == interval)
        #expect(LibraryService.checkInterval(after: .milliseconds(10), atLeast: interval) == .seconds(4))
        #expect(LibraryService.checkInterval(after: .seconds(2), atLeast: interval) == LibraryService.longestCheckInterval)
        #expect(LibraryService.checkInterval(after: .zero, atLeast: .seconds(60)) == .seconds(60))
    }

    /// The first walk of the library's files (a stat of each, 45 ms with all the shared corpora) runs in the
    /// background: `initialized` and the first completion never wait for it. The walk here is held until the
    /// completion was answered, so the order of events, not a clock, shows which waited.
    @Test func theFirstCompletionDoesNotWaitForTheFirstWalkOfTheLibrary() async throws {
        let library = TestLibrary([makeFile([makeSnippet("Hello", triggers: ["hello"], body: "hello()")])])
        let walk = Gate()
        let client = TestClient(library: library, polling: true) { configuration in
            let stamps = configuration.libraryStamps
            configuration.libraryStamps = { paths in
                walk.waitUntilOpen(atMost: .seconds(60))
                return stamps?(paths) ?? [:]
            }
        }
        try await client.initialize()
        #expect(try await labels(client, typing: "hel") == ["hello"])
        // An edit made before the held walk runs is in the walk's first stamps, so no later walk differs from them:
        // it counts because the file was modified after the load in service began.
        library.put(makeFile([makeSnippet("World", triggers: ["world"], body: "world()")], uri: "file:///lib/more.code-snippets"))
        walk.open()
        try await client.nextLoad()
        #expect(try await labels(client, typing: "wor") == ["world"])
    }

    /// eglot 1.9 and lsp-mode 8.0 declare `didChangeWatchedFiles.dynamicRegistration` and accept the registration,
    /// but watch only their project's folders: a library outside the workspace is checked periodically as well, so
    /// an edit counts without `M-x eglot-reconnect`.
    @Test func aClientThatWatchesOnlyItsWorkspaceStillSeesEditsToALibraryOutsideIt() async throws {
        let library = TestLibrary([makeFile([makeSnippet("Hello", triggers: ["hello"], body: "hello()")])])
        let client = TestClient(library: library, polling: true)
        try await client.initialize(capabilities: watchCapabilities, clientName: nil, workspaceFolders: ["/w"])
        let registration = try #require(await client.notification("client/registerCapability"))
        #expect(registration["registrations"]?.arrayValue?.first?["method"] == "workspace/didChangeWatchedFiles")
        #expect(try await labels(client, typing: "wor").isEmpty)
        // No workspace/didChangeWatchedFiles comes: the client does not watch /lib.
        library.put(makeFile([makeSnippet("World", triggers: ["world"], body: "world()")], uri: "file:///lib/more.code-snippets"))
        try await client.nextLoad()
        #expect(try await labels(client, typing: "wor") == ["world"])
    }

    /// Only what lies outside every workspace folder is checked periodically when the client watches: a library
    /// inside the project (and the project's `.vscode`) is left to the client.
    @Test func rootsOutsideTheWorkspaceAreTheOnesCheckedPeriodically() async throws {
        let client = TestClient(diskLibrary: ["/home/me/.config/snippets", "/w/notes/snippets"])
        try await client.initialize(capabilities: watchCapabilities, workspaceFolders: ["/w"])
        let outside = await client.server.watchedRootsOutsideWorkspace
        #expect(outside.contains("/home/me/.config/snippets"))
        #expect(!outside.contains("/w/notes/snippets"))
        #expect(!outside.contains("/w/.vscode"))
        #expect(!outside.contains { $0.hasPrefix("/w/") })
    }

    @Test func lastGoodFilesIsPure() {
        var lastGood = LastGoodFiles()
        let good = makeFile([makeSnippet("A", triggers: ["a"], body: "a")])
        _ = lastGood.serving(SnippetLibrary(files: [good]))
        let broken = makeFile([], diagnostics: [LibraryDiagnostic(uri: libraryURI, position: SourcePosition(line: 0, asciiColumn: 0), severity: .error, code: .jsonSyntax, message: "bad")])
        let served = lastGood.serving(SnippetLibrary(files: [broken]))
        #expect(served.snippets.map(\.title) == ["A"])
        #expect(served.diagnostics.map(\.message) == ["bad"])
        // A warning alone is not broken: the new version is served.
        let warned = makeFile([makeSnippet("B", triggers: ["b"], body: "b")], diagnostics: [LibraryDiagnostic(uri: libraryURI, position: SourcePosition(line: 0, asciiColumn: 0), severity: .warning, code: .duplicatePrefix, message: "meh")])
        #expect(lastGood.serving(SnippetLibrary(files: [warned])).snippets.map(\.title) == ["B"])
    }

    /// The periodic check stamps a file reached through a symbolic link (a dotfiles manager's link into the library
    /// folder) by its target, so editing the target is a change; folders are not stamped.
    @Test func stampsFollowLinksToTheirTargets() throws {
        let root = NSTemporaryDirectory() + "stamps-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/library/sub", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/dotfiles", withIntermediateDirectories: true)
        try "{}".write(toFile: root + "/dotfiles/mine.code-snippets", atomically: false, encoding: .utf8)
        try "{}".write(toFile: root + "/library/sub/own.code-snippets", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: root + "/library/mine.code-snippets", withDestinationPath: root + "/dotfiles/mine.code-snippets")
        let before = DiskStamps.stamps(under: [root + "/library"])
        #expect(Set(before.keys) == [root + "/library/mine.code-snippets", root + "/library/sub/own.code-snippets"])
        try #"{ "a": { "prefix": "a", "body": "b" } }"#.write(toFile: root + "/dotfiles/mine.code-snippets", atomically: false, encoding: .utf8)
        let after = DiskStamps.stamps(under: [root + "/library"])
        #expect(after[root + "/library/mine.code-snippets"] != before[root + "/library/mine.code-snippets"])
        #expect(after[root + "/library/sub/own.code-snippets"] == before[root + "/library/sub/own.code-snippets"])
    }

    /// The poll looks only at what a load reads: a library folder that is a git checkout with a virtual environment
    /// beside its snippets costs the same visits as the bare folder, and nothing under `.git` or `.venv` is stamped.
    @Test func thePollLooksOnlyAtWhatALoadReads() throws {
        let library = NSTemporaryDirectory() + "poll-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: library) }
        let files = FileManager.default
        try files.createDirectory(atPath: library + "/python", withIntermediateDirectories: true)
        try #"{"a": {"prefix": "a", "body": "b"}}"#.write(toFile: library + "/mine.code-snippets", atomically: false, encoding: .utf8)
        try "snippet def\n\tdef ${1}:\n".write(toFile: library + "/python/python.snippets", atomically: false, encoding: .utf8)
        try "notes".write(toFile: library + "/README.md", atomically: false, encoding: .utf8)
        let counter = CountingFileSystem()
        let bare = DiskStamps.stamps(under: [library], fileSystem: counter)
        let bareVisits = counter.visits

        for (folder, count) in [(".git/objects/ab", 150), (".git/objects/cd", 150), (".venv/lib/site-packages/pkg", 150)] {
            try files.createDirectory(atPath: library + "/" + folder, withIntermediateDirectories: true)
            for number in 0..<count { try "x".write(toFile: "\(library)/\(folder)/f\(number).snippets", atomically: false, encoding: .utf8) }
        }
        counter.visits = 0
        let beside = DiskStamps.stamps(under: [library], fileSystem: counter)
        #expect(counter.visits == bareVisits)
        #expect(Set(beside.keys) == Set(bare.keys))
        #expect(Set(DiskStamps.stamps(under: [library]).keys) == [library + "/mine.code-snippets", library + "/python/python.snippets", library + "/README.md"])
        // A new snippet file is still seen.
        try "snippet if\n\tif ${1}:\n".write(toFile: library + "/python/more.snippets", atomically: false, encoding: .utf8)
        #expect(DiskStamps.stamps(under: [library]).keys.contains(library + "/python/more.snippets"))
    }
}

/// The disk, counting every lookup the walk makes (what an idle poll costs).
private final class CountingFileSystem: LibraryFileSystem, @unchecked Sendable {
    // Used by one test on one thread at a time; the lock keeps the count right if the walk ever reads in parallel.
    private let lock = NSLock()
    private var count = 0
    private let disk = DiskFileSystem()

    var visits: Int {
        get { lock.withLock { count } }
        set { lock.withLock { count = newValue } }
    }
    private func counted<T>(_ body: () throws -> T) rethrows -> T {
        lock.withLock { count += 1 }
        return try body()
    }

    func item(at path: String) -> FileSystemItem { counted { disk.item(at: path) } }
    func contentsOfDirectory(at path: String) throws -> [String] { try counted { try disk.contentsOfDirectory(at: path) } }
    func contents(of path: String) throws -> [UInt8] { try counted { try disk.contents(of: path) } }
    func contents(of path: String, maximumSize: Int) throws -> [UInt8] { try counted { try disk.contents(of: path, maximumSize: maximumSize) } }
    func canonicalPath(of path: String) -> String? { counted { disk.canonicalPath(of: path) } }
    func identity(of path: String) -> String? { counted { disk.identity(of: path) } }

    /// The periodic check keeps its walk between checks: with nothing changed it walks nothing, and after each kind
    /// of change (a file edited, added in a new or an old folder, removed; a library folder created after start) it
    /// gives what a fresh walk gives.
    @Test func theCheckKeepsItsWalkAndStillSeesEveryChange() throws {
        let root = NSTemporaryDirectory() + "keeping-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = FileManager.default
        let library = root + "/library", later = root + "/later"
        try files.createDirectory(atPath: library + "/python", withIntermediateDirectories: true)
        try #"{"a": {"prefix": "a", "body": "b"}}"#.write(toFile: library + "/mine.code-snippets", atomically: false, encoding: .utf8)
        try "snippet def\n\tdef ${1}:\n".write(toFile: library + "/python/python.snippets", atomically: false, encoding: .utf8)
        let keeping = DiskStamps.WalkKeeping()
        let roots = [library, later]
        func check(_ what: String, walks: Int) {
            let kept = keeping.stamps(under: roots)
            #expect(kept == DiskStamps.stamps(under: roots), "\(what)")
            #expect(keeping.walks == walks, "\(what)")
        }
        check("first", walks: 1)
        check("nothing changed", walks: 1)
        check("still nothing", walks: 1)
        try #"{"a": {"prefix": "a", "body": "a longer body"}}"#.write(toFile: library + "/mine.code-snippets", atomically: false, encoding: .utf8)
        check("edited", walks: 2)
        try "snippet if\n\tif ${1}:\n".write(toFile: library + "/python/more.snippets", atomically: false, encoding: .utf8)
        check("added beside", walks: 3)
        try files.createDirectory(atPath: library + "/rust", withIntermediateDirectories: true)
        try "snippet fn\n\tfn ${1}() {}\n".write(toFile: library + "/rust/rust.snippets", atomically: false, encoding: .utf8)
        check("added in a new folder", walks: 4)
        try files.removeItem(atPath: library + "/python/python.snippets")
        check("removed", walks: 5)
        try files.createDirectory(atPath: later, withIntermediateDirectories: true)
        try #"{"z": {"prefix": "z", "body": "z"}}"#.write(toFile: later + "/late.code-snippets", atomically: false, encoding: .utf8)
        check("a library created after start", walks: 6)
        #expect(keeping.stamps(under: roots).keys.contains(later + "/late.code-snippets"))
        check("quiet again", walks: 6)
    }
}
