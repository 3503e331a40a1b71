import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// A client that cannot register completion later (Neovim) is answered at once on a later start of the same library
/// with unchanged files, with the trigger characters the last load gave; otherwise `initialize` waits for the load.
@Suite struct TriggerCharacterMemoryTests {
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trigger-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func stamp(_ size: Int) -> FileStamp { FileStamp(size: size, modified: Date(timeIntervalSince1970: 1_000)) }

    @Test func aKeptListIsRecalledOnlyForItsKeyAndTheSameStamps() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder.path) }
        let memory = TriggerCharacterMemory(folder: folder.path + "/cache")
        let key = TriggerCharacterMemory.Key(layers: [LibraryLayer(path: "/lib")], workspaceFolders: [], includingWordCharacters: true)
        let stamps = ["/lib/a.json": Self.stamp(10), "/lib/b.json": Self.stamp(20)]
        #expect(!memory.hasList(for: key))
        memory.keep(["a", "b", "€"], for: key, stamps: stamps)
        #expect(memory.hasList(for: key))
        #expect(memory.recall(key, stamps: stamps) == ["a", "b", "€"])
        // A file changed, added or removed, another library, or another kind of client: nothing kept.
        #expect(memory.recall(key, stamps: ["/lib/a.json": Self.stamp(11), "/lib/b.json": Self.stamp(20)]) == nil)
        #expect(memory.recall(key, stamps: stamps.merging(["/lib/c.json": Self.stamp(1)]) { $1 }) == nil)
        #expect(memory.recall(key, stamps: ["/lib/a.json": Self.stamp(10)]) == nil)
        let other = TriggerCharacterMemory.Key(layers: [LibraryLayer(path: "/other")], workspaceFolders: [], includingWordCharacters: true)
        let words = TriggerCharacterMemory.Key(layers: [LibraryLayer(path: "/lib")], workspaceFolders: [], includingWordCharacters: false)
        #expect(memory.recall(other, stamps: stamps) == nil && memory.recall(words, stamps: stamps) == nil)
        // A file that is not a kept list counts as none.
        try Data("not json".utf8).write(to: URL(fileURLWithPath: folder.path + "/cache/" + key.fileName))
        #expect(memory.recall(key, stamps: stamps) == nil)
    }

    /// A list kept with its walk lets a later start check the kept folders and files instead of walking the library
    /// (the walk decides each file's format: most of what `initialize` cost at 13,000 snippets); a file added to a
    /// kept folder, or a library created since, makes it walk, and the list is not recalled.
    @Test func aListKeptWithItsWalkIsRecalledWithoutWalkingAgain() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder.path) }
        let library = folder.path + "/library", later = folder.path + "/later"
        try FileManager.default.createDirectory(atPath: library + "/python", withIntermediateDirectories: true)
        try #"{"a": {"prefix": "a", "body": "b"}}"#.write(toFile: library + "/mine.code-snippets", atomically: false, encoding: .utf8)
        try "snippet def\n\tdef ${1}:\n".write(toFile: library + "/python/python.snippets", atomically: false, encoding: .utf8)
        let roots = [library, later]
        let memory = TriggerCharacterMemory(folder: folder.path + "/cache")
        let key = TriggerCharacterMemory.Key(layers: [LibraryLayer(path: library)], workspaceFolders: [], includingWordCharacters: true)
        let walk = DiskStamps.WalkKeeping().walk(under: roots)
        memory.keep(["a", "d"], for: key, stamps: walk.stamps, walk: walk)

        func recall() -> (characters: [String]?, walks: Int) {
            let keeping = DiskStamps.WalkKeeping()
            let characters = memory.recall(key, adoptingInto: keeping) { keeping.stamps(under: roots) }?.characters
            return (characters, keeping.walks)
        }
        let unchanged = recall()
        #expect(unchanged.characters == ["a", "d"])
        #expect(unchanged.walks == 0)

        try "snippet if\n\tif ${1}:\n".write(toFile: library + "/python/more.snippets", atomically: false, encoding: .utf8)
        let added = recall()
        #expect(added.characters == nil)
        #expect(added.walks == 1)

        try FileManager.default.removeItem(atPath: library + "/python/more.snippets")
        try FileManager.default.createDirectory(atPath: later, withIntermediateDirectories: true)
        try #"{"z": {"prefix": "€", "body": "z"}}"#.write(toFile: later + "/late.code-snippets", atomically: false, encoding: .utf8)
        let created = recall()
        #expect(created.characters == nil)
        #expect(created.walks == 1)
    }

    /// The stamps the test's "disk" reports, changed by the test.
    final class Stamps: @unchecked Sendable {
        private let lock = NSLock()
        private var stamps: [String: FileStamp]
        init(_ stamps: [String: FileStamp]) { self.stamps = stamps }
        var value: [String: FileStamp] {
            get { lock.withLock { stamps } }
            set { lock.withLock { stamps = newValue } }
        }
    }

    /// A Neovim session over `fileSystem`, its trigger characters kept in `cache`; returns the client and the
    /// `initialize` request, sent but not awaited.
    func start(
        _ fileSystem: GatedFileSystem, stamps: Stamps, cache: String, firstLanguageGrace: Duration? = nil
    ) -> (TestClient, Int) {
        let client = TestClient(firstLoadWait: patience) { configuration in
            if let firstLanguageGrace { configuration.firstLanguageGrace = firstLanguageGrace }
            configuration.defaultLibraryLayers = [LibraryLayer(path: "/lib")]
            configuration.loadLibrary = { layers, roots in LibraryLoader(fileSystem: fileSystem).load(layers: layers, workspaceRoots: roots) }
            configuration.loadLanguageFiles = { layers, language in LibraryLoader(fileSystem: fileSystem).load(layers: layers, language: language) }
            configuration.libraryStamps = { _ in stamps.value }
            configuration.triggerCharacterMemory = TriggerCharacterMemory(folder: cache)
        }
        let capabilities: JSONValue = ["textDocument": ["completion": ["completionItem": ["snippetSupport": true]]]]
        let request = client.sendRequest(
            "initialize", ["processId": .null, "capabilities": capabilities, "clientInfo": ["name": "Neovim"]])
        return (client, request)
    }

    static func triggerCharacters(_ reply: JSONValue?) -> [String]? {
        reply?["capabilities"]?["completionProvider"]?["triggerCharacters"]?.arrayValue?.compactMap(\.stringValue)
    }

    @Test func neovimIsAnsweredAtOnceWhenTheLibraryIsUnchangedSinceItsLastLoad() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder.path) }
        let cache = folder.path + "/cache"
        let python = #"{ "Greet": { "prefix": "héllo", "body": "print('hi')" } }"#
        let stamps = Stamps(["/lib/python.json": Self.stamp(python.utf8.count)])

        // First start: nothing kept, so the reply waits for the load; the load's characters are kept.
        let first = GatedFileSystem(files: ["/lib/python.json": python], closed: [])
        let (client, request) = start(first, stamps: stamps, cache: cache)
        let firstCharacters = try #require(Self.triggerCharacters(try await client.response(to: request)?.get()))
        #expect(firstCharacters.contains("é"))
        client.notify("initialized", [:])
        let key = TriggerCharacterMemory.Key(layers: [LibraryLayer(path: "/lib")], workspaceFolders: [], includingWordCharacters: true)
        #expect(await eventually { TriggerCharacterMemory(folder: cache).hasList(for: key) })

        // Second start, files unchanged, the library not readable yet: the reply comes before any file is read.
        let second = GatedFileSystem(files: ["/lib/python.json": python], closed: ["/lib/python.json"])
        defer { second.openAll() }
        let (again, secondRequest) = start(second, stamps: stamps, cache: cache)
        let secondCharacters = Self.triggerCharacters(try await again.response(to: secondRequest)?.get())
        #expect(!second.hasRead("/lib/python.json"))
        #expect(secondCharacters == firstCharacters)
        second.openAll()

        // Third start, the file changed (a new trigger character): the reply is the load's, so it waited for it.
        let changed = #"{ "Greet": { "prefix": "héllo", "body": "print('hi')" }, "Euro": { "prefix": "€", "body": "EUR" } }"#
        // Edited now, as on a disk: a list kept late by the second session (its load began before) is not kept.
        stamps.value = ["/lib/python.json": FileStamp(size: changed.utf8.count, modified: Date())]
        let third = GatedFileSystem(files: ["/lib/python.json": changed], closed: [])
        let (last, thirdRequest) = start(third, stamps: stamps, cache: cache)
        let thirdCharacters = try #require(Self.triggerCharacters(try await last.response(to: thirdRequest)?.get()))
        #expect(thirdCharacters.contains("€"))
        #expect(third.hasRead("/lib/python.json"))
    }

    /// A start answered from a kept list reads the language the last session opened first at once, before any
    /// document is opened (the whole library's load waits for a language's files, here for as long as a test waits,
    /// so only that early read can read the Python file).
    @Test func theLanguageTheLastSessionOpenedFirstIsReadAtInitialize() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder.path) }
        let cache = folder.path + "/cache"
        let files = [
            "/lib/python.json": #"{ "For": { "prefix": "for", "body": "for $1 in $2:" } }"#,
            "/lib/javascript.json": #"{ "For": { "prefix": "for", "body": "for (;;) {}" } }"#,
        ]
        let stamps = Stamps(files.mapValues { Self.stamp($0.utf8.count) })
        let key = TriggerCharacterMemory.Key(layers: [LibraryLayer(path: "/lib")], workspaceFolders: [], includingWordCharacters: true)
        TriggerCharacterMemory(folder: cache).keep(["f", "o", "r"], for: key, stamps: stamps.value, firstLanguage: "python")
        #expect(TriggerCharacterMemory(folder: cache).recall(key, stamps: { stamps.value })?.firstLanguage == "python")

        let fileSystem = GatedFileSystem(files: files, closed: [])
        let (client, request) = start(fileSystem, stamps: stamps, cache: cache, firstLanguageGrace: patience)
        #expect(Self.triggerCharacters(try await client.response(to: request)?.get()) == ["f", "o", "r"])
        #expect(await eventually { fileSystem.hasRead("/lib/python.json") })
        #expect(fileSystem.readOrder.first == "/lib/python.json")
        // The whole library follows once that language is read.
        try await client.nextLoad()
        #expect(fileSystem.hasRead("/lib/javascript.json"))
    }
}
