import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// An in-memory file system whose chosen files cannot be read until the test opens them, as a slow disk would
/// hold them: the tests order events (this file not read yet, that one read) and never measure time.
final class GatedFileSystem: LibraryFileSystem, @unchecked Sendable {
    // `@unchecked`: `closed`, `finished` and `readers` are touched only under `condition`'s lock.
    private let files: InMemoryFileSystem
    private let condition = NSCondition()
    private var closed: Set<String>
    private var finished: [String] = []
    /// Tests waiting for a file to be read, by path.
    private var readers: [String: [CheckedContinuation<Void, Never>]] = [:]

    init(files: [String: String], closed: Set<String>) {
        self.files = InMemoryFileSystem(files: files)
        self.closed = closed
    }

    /// Lets every reader of `path` (waiting or later) through.
    func open(_ path: String) {
        condition.withLock {
            closed.remove(path)
            condition.broadcast()
        }
    }

    /// Opens every closed file (a test's end, so no load stays blocked).
    func openAll() {
        condition.withLock {
            closed = []
            condition.broadcast()
        }
    }

    /// The paths read so far, in the order their reads returned.
    var readOrder: [String] { condition.withLock { finished } }

    /// Whether some read of `path` has returned its bytes.
    func hasRead(_ path: String) -> Bool { condition.withLock { finished.contains(path) } }

    /// Returns once some read of `path` has returned its bytes.
    func waitUntilRead(_ path: String) async {
        await withCheckedContinuation { continuation in
            let isRead = condition.withLock {
                if finished.contains(path) { return true }
                readers[path, default: []].append(continuation)
                return false
            }
            if isRead { continuation.resume() }
        }
    }

    func item(at path: String) -> FileSystemItem { files.item(at: path) }
    func contentsOfDirectory(at path: String) throws -> [String] { try files.contentsOfDirectory(at: path) }
    func canonicalPath(of path: String) -> String? { files.canonicalPath(of: path) }
    func contents(of path: String) throws -> [UInt8] { try contents(of: path, maximumSize: .max) }

    func contents(of path: String, maximumSize: Int) throws -> [UInt8] {
        condition.withLock {
            while closed.contains(path) { condition.wait() }
        }
        let bytes = try files.contents(of: path, maximumSize: maximumSize)
        let waiting = condition.withLock {
            finished.append(path)
            return readers.removeValue(forKey: path) ?? []
        }
        for reader in waiting { reader.resume() }
        return bytes
    }
}

/// The first completion is served from the files its document's language needs, before the whole library is read
/// (issue 33), and a layer read late never lets a lower layer's trigger win meanwhile.
@Suite struct FirstCompletionTests {
    static let pythonURI = "file:///w/app.py"
    /// A client that registers completion later, so `initialize` does not wait for the library.
    static let capabilities: JSONValue = [
        "textDocument": ["completion": ["dynamicRegistration": true, "completionItem": ["snippetSupport": true, "labelDetailsSupport": true]]]
    ]

    /// A server over `fileSystem`, loading as `serve` does, initialized without waiting for a load.
    func client(
        _ fileSystem: GatedFileSystem, layers: [LibraryLayer], firstLanguageGrace: Duration? = nil
    ) async throws -> TestClient {
        let client = TestClient(firstLoadWait: patience) { configuration in
            if let firstLanguageGrace { configuration.firstLanguageGrace = firstLanguageGrace }
            configuration.defaultLibraryLayers = layers
            configuration.loadLibrary = { layers, roots in
                LibraryLoader(fileSystem: fileSystem).load(layers: layers, workspaceRoots: roots)
            }
            configuration.loadLanguageFiles = { layers, language in
                LibraryLoader(fileSystem: fileSystem).load(layers: layers, language: language)
            }
        }
        _ = try await client.result("initialize", ["processId": .null, "capabilities": Self.capabilities])
        client.notify("initialized", [:])
        return client
    }

    @Test func aPythonCompletionIsAnsweredWhileJavaScriptIsStillUnread() async throws {
        let fileSystem = GatedFileSystem(
            files: [
                "/lib/python.json": #"{ "For": { "prefix": "for", "body": "for $1 in $2:" } }"#,
                "/lib/javascript.json": #"{ "For": { "prefix": "for", "body": "for (;;) {}" } }"#,
            ],
            closed: ["/lib/javascript.json"])
        defer { fileSystem.openAll() }
        let client = try await client(fileSystem, layers: [LibraryLayer(path: "/lib")])
        client.open(Self.pythonURI, language: "python", text: "fo")

        // A client that waits for a registration to complete is told it may, from the Python files alone.
        let registration = try #require(await client.notification("client/registerCapability"))
        #expect(registration["registrations"]?.arrayValue?.first?["method"]?.stringValue == "textDocument/completion")
        #expect(!fileSystem.hasRead("/lib/javascript.json"))

        let first = try await client.complete(Self.pythonURI, line: 0, character: 2)
        #expect(!fileSystem.hasRead("/lib/javascript.json"))
        #expect(first.items.map(\.label) == ["for"])
        #expect(first.items.first?.textEdit.map(newText) == "for $1 in $2:")
        // The client asks again, and then meets the whole library.
        #expect(first.isIncomplete)

        fileSystem.openAll()
        try await client.nextLoad()
        let later = try await client.complete(Self.pythonURI, line: 0, character: 2)
        #expect(later.items.map(\.label) == ["for"])
        #expect(!later.isIncomplete)
    }

    /// When `initialize` did not wait for the library, the whole library's first load lets the first document's
    /// language files be read before it reads anything: on two cores it would compete with them for the first
    /// completion. (The grace is a test's patience here, so the order cannot depend on how busy the machine is.)
    @Test func theWholeLibraryIsReadAfterTheFirstDocumentsLanguage() async throws {
        let fileSystem = GatedFileSystem(
            files: [
                "/lib/python.json": #"{ "For": { "prefix": "for", "body": "for $1 in $2:" } }"#,
                "/lib/javascript.json": #"{ "For": { "prefix": "for", "body": "for (;;) {}" } }"#,
            ],
            closed: [])
        let client = try await client(fileSystem, layers: [LibraryLayer(path: "/lib")], firstLanguageGrace: patience)
        client.open(Self.pythonURI, language: "python", text: "fo")
        try await client.nextLoad()
        let order = fileSystem.readOrder
        #expect(order.first == "/lib/python.json")
        #expect(order.contains("/lib/javascript.json"))
        #expect(try await client.complete(Self.pythonURI, line: 0, character: 2).items.map(\.label) == ["for"])
    }

    /// A client that opens no document (one that only asks) still gets the whole library, once the grace is over.
    @Test func withoutADocumentTheWholeLibraryIsReadAfterTheGrace() async throws {
        let fileSystem = GatedFileSystem(
            files: ["/lib/python.json": #"{ "For": { "prefix": "for", "body": "for $1 in $2:" } }"#], closed: [])
        let client = try await client(fileSystem, layers: [LibraryLayer(path: "/lib")], firstLanguageGrace: .milliseconds(1))
        try await client.nextLoad()
        #expect(fileSystem.readOrder == ["/lib/python.json"])
    }

    @Test func aLayerReadLateStillWinsItsTrigger() async throws {
        let fileSystem = GatedFileSystem(
            files: [
                "/personal/python.json": #"{ "Log": { "prefix": "log", "body": "print('mine', $1)" } }"#,
                "/personal/javascript.json": #"{ "Log": { "prefix": "log", "body": "console.log($1)" } }"#,
                "/team/python.json": #"{ "Team log": { "prefix": "log", "body": "logging.info($1)" } }"#,
            ],
            closed: ["/personal/python.json", "/personal/javascript.json"])
        defer { fileSystem.openAll() }
        let layers = [LibraryLayer(path: "/personal", name: "personal"), LibraryLayer(path: "/team", name: "team")]
        let client = try await client(fileSystem, layers: layers)
        client.open(Self.pythonURI, language: "python", text: "log")
        let request = client.sendRequest(
            "textDocument/completion", ["textDocument": ["uri": .string(Self.pythonURI)], "position": ["line": 0, "character": 3]])

        // The lower layer's file is read first; only then may the higher one's be.
        await fileSystem.waitUntilRead("/team/python.json")
        fileSystem.open("/personal/python.json")
        let reply = try #require(try await client.response(to: request)?.get())
        let list = try reply.decode(CompletionList.self)
        #expect(!fileSystem.hasRead("/personal/javascript.json"))
        let logs = list.items.filter { $0.label == "log" }
        #expect(logs.map(\.labelDetails?.description) == ["personal", "team"])
        #expect(logs.first?.textEdit.map(newText) == "print('mine', $1)")
    }

    private func newText(_ edit: CompletionTextEdit) -> String {
        switch edit {
        case .textEdit(let edit): edit.newText
        case .insertReplace(let edit): edit.newText
        }
    }
}
