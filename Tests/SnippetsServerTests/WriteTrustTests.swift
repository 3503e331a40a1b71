import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// Where `saved.code-snippets` (in the writable `personal` layer, no `saveTo`) leads, and whether a save there must
/// be refused. The library holds links (dotfiles, a cloned repository's files): the one write check judges the file
/// a save would change, every link resolved.
enum SavedFileLink: String, CaseIterable, CustomStringConvertible, Sendable {
    /// A JSON file outside every layer.
    case outsideJSON
    /// A configuration file outside every layer.
    case outsideSettings
    /// The read-only team layer's snippet file.
    case teamFile
    /// A file that does not exist yet, in the read-only team layer.
    case newTeamFile
    /// A file that does not exist yet, outside every layer.
    case newOutsideFile
    /// A link to a link to the team layer's file.
    case chainIntoTeam
    /// Another snippet file of the same writable layer: allowed.
    case ownLayerFile

    var description: String { rawValue }

    func target(_ fixture: TeamLibraryFixture) -> String {
        switch self {
        case .outsideJSON: fixture.root + "/outside/data.json"
        case .outsideSettings: fixture.root + "/outside/settings.json"
        case .teamFile, .chainIntoTeam: fixture.teamFile
        case .newTeamFile: fixture.team + "/saved.code-snippets"
        case .newOutsideFile: fixture.root + "/outside/saved.code-snippets"
        case .ownLayerFile: fixture.personalFile
        }
    }

    var isAllowed: Bool { self == .ownLayerFile }

    /// What the refusal says.
    var reason: String {
        switch self {
        case .outsideJSON: "is not inside your library"
        case .outsideSettings: "is not a .code-snippets"
        case .teamFile, .chainIntoTeam: "the library layer 'team'"
        case .newTeamFile, .newOutsideFile: "is a link that leads nowhere"
        case .ownLayerFile: ""
        }
    }

    /// Makes the outside files and the link `personal/saved.code-snippets`; returns every file's bytes to compare.
    func install(in fixture: TeamLibraryFixture) throws -> [String: String] {
        let manager = FileManager.default
        try manager.createDirectory(atPath: fixture.root + "/outside", withIntermediateDirectories: true)
        try "{\n  \"keep\": 1\n}\n".write(toFile: fixture.root + "/outside/data.json", atomically: true, encoding: .utf8)
        try "{\n  \"editor.fontSize\": 14\n}\n".write(toFile: fixture.root + "/outside/settings.json", atomically: true, encoding: .utf8)
        let link = fixture.personal + "/" + SaveSelection.defaultFileName
        if self == .chainIntoTeam {
            try manager.createSymbolicLink(atPath: fixture.root + "/outside/hop.code-snippets", withDestinationPath: target(fixture))
            try manager.createSymbolicLink(atPath: link, withDestinationPath: "../outside/hop.code-snippets")
        } else {
            try manager.createSymbolicLink(atPath: link, withDestinationPath: target(fixture))
        }
        var bytes: [String: String] = [:]
        for path in [fixture.root + "/outside/data.json", fixture.root + "/outside/settings.json", fixture.teamFile, fixture.personalFile] {
            bytes[path] = try String(contentsOfFile: path, encoding: .utf8)
        }
        return bytes
    }

    /// Checks that a refused save changed nothing: every file as it was, no new file, the team checkout clean.
    func expectNothingWritten(_ fixture: TeamLibraryFixture, before: [String: String], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        for (path, text) in before {
            #expect(try String(contentsOfFile: path, encoding: .utf8) == text, "\(path) changed", sourceLocation: sourceLocation)
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.team + "/saved.code-snippets"), sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: fixture.root + "/outside/saved.code-snippets"), sourceLocation: sourceLocation)
        #expect(try fixture.git("status", "--porcelain", "--ignored") == "", sourceLocation: sourceLocation)
    }
}

/// One write check for every write: a save without `saveTo` through the editors' command and `snippets-lsp mcp`'s
/// `save_snippet`, judged on the file the link at `saved.code-snippets` leads to.
@Suite(.serialized) struct OneWriteCheckTests {
    let uri = "file:///work/app.js"

    @Test(arguments: SavedFileLink.allCases)
    func theEditorsSaveWritesOnlyIntoAWritableLayerWhereverTheDefaultFileLeads(link: SavedFileLink) async throws {
        let fixture = try TeamLibraryFixture()
        let before = try link.install(in: fixture)
        let client = TestClient(diskLayers: fixture.layers)
        try await client.initialize()
        client.open(uri, language: "javascript", text: "retry(() => fetch(url), 3)")
        let range: JSONValue = ["start": ["line": 0, "character": 0], "end": ["line": 0, "character": 26]]
        let reply = await client.request(
            "workspace/executeCommand",
            ["command": "snippets.saveSelection", "arguments": [["textDocument": ["uri": .string(uri)], "range": range, "trigger": "rtry"]]])
        if link.isAllowed {
            _ = try #require(reply).get()
            #expect(try String(contentsOfFile: fixture.personalFile, encoding: .utf8).contains("\"rtry\""))
            return
        }
        guard case .failure(let error) = reply else {
            Issue.record("saved through a link to \(link): \(String(describing: reply))")
            return
        }
        #expect(error.message.hasPrefix("Snippet not saved: ") && error.message.contains(link.reason), "\(error.message)")
        var shown: [String] = []
        while let message = await client.notification("window/showMessage", timeout: .seconds(2))?["message"]?.stringValue {
            shown.append(message)
            if message == error.message { break }
        }
        #expect(shown.last == error.message, "the user was not told: \(shown)")
        try link.expectNothingWritten(fixture, before: before)
        _ = try await client.shutdownAndExit()
    }

    @Test(arguments: SavedFileLink.allCases)
    func mcpSaveSnippetWritesOnlyIntoAWritableLayerWhereverTheDefaultFileLeads(link: SavedFileLink) async throws {
        let fixture = try TeamLibraryFixture()
        let before = try link.install(in: fixture)
        var configuration = ServerConfiguration(
            defaultLibraryLayers: fixture.layers,
            loadLibrary: { layers, roots in LayerLoading.load(layers: layers, workspaceRoots: roots) },
            libraryStamps: nil, logError: { _ in }, environment: [:])
        configuration.learningDisabled = true
        let library = WatchedLibrary(configuration: configuration)
        await library.start()
        var options = MCPServerOptions(environment: [:], log: { _ in })
        options.allowsSave = true
        let tools = MCPTools(library: library, options: options, qualifier: ModelQualifier(cache: QualificationCache(environment: [:]), pacing: .immediate))
        let result = try await tools.call(
            "save_snippet", arguments: ["title": "Retry", "trigger": "rtry", "body": "retry(() => fetch(url), 3)"])
        let text = result.content.map(\.text).joined()
        if link.isAllowed {
            #expect(result.isError != true, "\(text)")
            #expect(try String(contentsOfFile: fixture.personalFile, encoding: .utf8).contains("\"rtry\""))
            return
        }
        #expect(result.isError == true, "saved through a link to \(link): \(text)")
        #expect(text.contains(link.reason), "\(text)")
        try link.expectNothingWritten(fixture, before: before)
    }

    /// `saveTo` goes through the same check: a path inside the writable layer that is a folder link into the team
    /// checkout, and a file outside the library.
    @Test(arguments: ["/personal/team-link/saved.code-snippets", "/outside/mine.code-snippets"])
    func saveToIsJudgedByTheSameCheck(relative: String) async throws {
        let fixture = try TeamLibraryFixture()
        try FileManager.default.createSymbolicLink(atPath: fixture.personal + "/team-link", withDestinationPath: fixture.team)
        try FileManager.default.createDirectory(atPath: fixture.root + "/outside", withIntermediateDirectories: true)
        let layers = fixture.layers
        var settings = ServerSettings()
        settings.saveTo = fixture.root + relative
        #expect(throws: ResponseError.self) { try SaveSelection.destination(settings: settings, layers: layers, environment: [:]) }
        #expect(throws: ResponseError.self) {
            try SaveRequest(text: "x", title: "X", trigger: "x").write(
                to: fixture.root + relative, layers: layers, snapshot: .empty, writer: SnippetFileWriter())
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.team + "/saved.code-snippets"))
        #expect(!FileManager.default.fileExists(atPath: fixture.root + "/outside/mine.code-snippets"))
    }
}

/// A settings change (`workspace/didChangeConfiguration`, which a repository's `.vscode/settings.json` or
/// `.dir-locals.el` can drive) never widens where the server writes: what was read-only at start stays so, and
/// `saveTo` is the start one.
@Suite(.serialized) struct StartOnlyWriteSettingsTests {
    let uri = "file:///work/app.js"

    /// How the layers were fixed at start.
    enum Start: String, CaseIterable, CustomStringConvertible, Sendable {
        case commandLine, initializationOptions
        var description: String { rawValue }
    }

    func started(_ fixture: TeamLibraryFixture, _ start: Start) async throws -> TestClient {
        switch start {
        case .commandLine:
            let client = TestClient(diskLayers: fixture.layers)
            try await client.initialize()
            return client
        case .initializationOptions:
            let client = TestClient(diskLayers: [LibraryLayer(path: fixture.root + "/unused")])
            try await client.initialize(options: ["libraries": [
                .string(fixture.personal), ["path": .string(fixture.team), "name": "team", "readOnly": true],
            ]])
            return client
        }
    }

    func save(_ client: TestClient, trigger: String) async -> Result<JSONValue, ResponseError>? {
        let range: JSONValue = ["start": ["line": 0, "character": 0], "end": ["line": 0, "character": 26]]
        return await client.request(
            "workspace/executeCommand",
            ["command": "snippets.saveSelection", "arguments": [["textDocument": ["uri": .string(uri)], "range": range, "trigger": .string(trigger)]]])
    }

    /// The changes a repository's settings could send after start, each aimed at the team checkout.
    static let changes: [JSONValue] = [
        // The team layer re-listed first, without readOnly: the default destination would be in it.
        ["libraries": [["path": "TEAM", "name": "team"], "PERSONAL"]],
        // Only the team layer, writable.
        ["libraries": ["TEAM"]],
        // saveTo into the team layer.
        ["saveTo": "TEAM/saved.code-snippets"],
        // The folder holding both layers, writable, and saveTo into the team layer through it.
        ["libraries": ["ROOT"], "saveTo": "ROOT/team/saved.code-snippets"],
        // A folder outside the library, writable.
        ["libraries": ["ROOT/outside"], "saveTo": "ROOT/outside/saved.code-snippets"],
    ]

    @Test(arguments: Start.allCases, 0..<changes.count)
    func aSettingsChangeCannotMakeTheServerWriteWhereItCouldNotAtStart(start: Start, change: Int) async throws {
        let fixture = try TeamLibraryFixture()
        try FileManager.default.createDirectory(atPath: fixture.root + "/outside", withIntermediateDirectories: true)
        let client = try await started(fixture, start)
        let settings = try JSONValue.parse(Array(
            String(decoding: Self.changes[change].serialized(), as: UTF8.self)
                .replacingOccurrences(of: "TEAM", with: fixture.team).replacingOccurrences(of: "PERSONAL", with: fixture.personal)
                .replacingOccurrences(of: "ROOT", with: fixture.root).utf8))
        client.notify("workspace/didChangeConfiguration", ["settings": ["snippets": settings]])
        if settings["libraries"] != nil { try await client.nextLoad() }
        client.open(uri, language: "javascript", text: "retry(() => fetch(url), 3)")
        let reply = await save(client, trigger: "rtry")
        if case .success(let value) = reply {
            // Saving may still succeed, but only into the writable layer fixed at start.
            let path = try #require(value["path"]?.stringValue)
            #expect(path.hasPrefix(fixture.personal + "/"), "saved to \(path)")
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.team + "/saved.code-snippets"))
        #expect(!FileManager.default.fileExists(atPath: fixture.root + "/saved.code-snippets"))
        #expect(!FileManager.default.fileExists(atPath: fixture.root + "/outside/saved.code-snippets"))
        #expect(try fixture.git("status", "--porcelain", "--ignored") == "")

        // Learning into the team layer's snippet is refused too.
        if let letter = await client.server.snapshot.library.snippets.first(where: { $0.title == "Overdue invoice letter" }) {
            let learned = await client.request(
                "workspace/executeCommand",
                ["command": "snippets.learn", "arguments": [["question": "a customer still owes us money", "id": .string(letter.id.rawValue)]]])
            if case .success(let value) = learned { Issue.record("learned after the change: \(value)") }
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.team + "/" + LearnedWords.fileName))
        #expect(!FileManager.default.fileExists(atPath: fixture.root + "/" + LearnedWords.fileName))
        #expect(try fixture.git("status", "--porcelain", "--ignored") == "")
        _ = try await client.shutdownAndExit()
    }

    @Test func aChangeMayStillNarrowAndReorderWhatIsWritable() async throws {
        let fixture = try TeamLibraryFixture()
        let client = try await started(fixture, .commandLine)
        // Team first, still read-only: the save lands in the personal layer.
        client.notify("workspace/didChangeConfiguration", ["settings": ["snippets": ["libraries": [
            ["path": .string(fixture.team), "name": "team", "readOnly": true], .string(fixture.personal),
        ]]]])
        try await client.nextLoad()
        client.open(uri, language: "javascript", text: "retry(() => fetch(url), 3)")
        let saved = try #require(await save(client, trigger: "rtry")).get()
        #expect(saved["path"]?.stringValue == fixture.personal + "/saved.code-snippets")
        // The personal layer made read-only by a change: nothing is writable, and the reply says why.
        client.notify("workspace/didChangeConfiguration", ["settings": ["snippets": ["libraries": [
            ["path": .string(fixture.personal), "readOnly": true],
        ]]]])
        try await client.nextLoad()
        guard case .failure(let error) = try #require(await save(client, trigger: "rtry2")) else {
            Issue.record("saved into a layer the change made read-only")
            return
        }
        #expect(error.message.contains("read-only"))
        _ = try await client.shutdownAndExit()
    }
}
