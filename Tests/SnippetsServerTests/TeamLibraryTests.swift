import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import SnippetsCore
import Testing

@testable import SnippetsServer

/// A personal layer (a plain folder) and a team layer that is a real git repository, made on disk per test.
final class TeamLibraryFixture: Sendable {
    let root: String
    var personal: String { root + "/personal" }
    var team: String { root + "/team" }
    var personalFile: String { personal + "/mine.code-snippets" }
    var teamFile: String { team + "/javascript.json" }

    static let personalSnippets = """
        {
          "Log (mine)": { "prefix": "log", "body": "console.log('mine', $1)", "scope": "javascript" },
          "Thank-you note": { "prefix": "thanks", "body": "Many thanks for your help with the release." }
        }
        """

    static let teamSnippets = """
        {
          "Team log": { "prefix": "log", "body": "logger.info($1)" },
          "Overdue invoice letter": { "prefix": "overdue", "body": "Our records show invoice $1 is overdue; please pay within 7 days." },
          "Release checklist": { "prefix": "relcheck", "body": "- [ ] tag\\n- [ ] changelog\\n- [ ] announce" }
        }
        """

    init() throws {
        root = NSTemporaryDirectory() + "team-library-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root + "/personal", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/team", withIntermediateDirectories: true)
        try Self.personalSnippets.write(toFile: root + "/personal/mine.code-snippets", atomically: true, encoding: .utf8)
        try Self.teamSnippets.write(toFile: root + "/team/javascript.json", atomically: true, encoding: .utf8)
        try git("init", "-q")
        try commit("Team snippets")
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// Runs `git` in the team repository (or `directory`) and returns its trimmed output.
    @discardableResult
    func git(_ arguments: String..., in directory: String? = nil) throws -> String {
        let command = ["git", "-C", directory ?? team, "-c", "user.name=Team", "-c", "user.email=team@example.com",
                       "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        environment["HOME"] = root
        guard let (status, output) = spawnClosingDescriptors(command, environment: environment), status == 0 else {
            throw ResponseError.internalError("git \(arguments) failed")
        }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Stages everything in the team repository and commits it.
    func commit(_ message: String) throws {
        try git("add", "-A")
        try git("commit", "-q", "-m", message)
    }

    var head: String { (try? git("rev-parse", "HEAD")) ?? "" }

    /// Rewrites the team file (a teammate's change, pulled).
    func editTeamFile(_ transform: (String) -> String) throws {
        let text = try String(contentsOfFile: teamFile, encoding: .utf8)
        try transform(text).write(toFile: teamFile, atomically: true, encoding: .utf8)
    }

    /// `personal` (writable) first, `team` (read-only) second.
    var layers: [LibraryLayer] {
        [LibraryLayer(path: personal, name: "personal"), LibraryLayer(path: team, name: "team", isReadOnly: true)]
    }

    var flags: [String] { ["--library", "personal=" + personal, "--library", "team=" + team] }
}

/// Runs `command` (through `/usr/bin/env`) with every descriptor above stderr closed in the child, and returns its
/// exit status and stdout. `Process` would let the child inherit descriptors other tests hold open without
/// close-on-exec (the fake model server's listening socket), which keeps that port accepting after the test closed it.
func spawnClosingDescriptors(_ command: [String], environment: [String: String]) -> (Int32, String)? {
    var pipe: [Int32] = [0, 0]
    guard Glibc.pipe(&pipe) == 0 else { return nil }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    // glibc 2.34+; not in the Swift module map (it needs _GNU_SOURCE), so looked up by name.
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
        close(pipe[0])
        close(pipe[1])
        return nil
    }
    _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    let argv = (["/usr/bin/env"] + command).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, envp)
    close(pipe[1])
    defer { close(pipe[0]) }
    guard spawned == 0 else { return nil }
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(pipe[0], &buffer, buffer.count)
        if count <= 0 { break }
        output += buffer[0..<count]
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    return (exitStatus, String(decoding: output, as: UTF8.self))
}

@Suite(.serialized) struct TeamLibraryTests {
    let javascriptURI = "file:///work/app.js"

    func client(_ fixture: TeamLibraryFixture, layers: [LibraryLayer]? = nil, options: JSONValue? = nil) async throws -> TestClient {
        let client = TestClient(diskLayers: layers ?? fixture.layers)
        let capabilities: JSONValue = [
            "textDocument": ["completion": ["completionItem": ["snippetSupport": true, "labelDetailsSupport": true]]]
        ]
        try await client.initialize(capabilities: capabilities, options: options)
        return client
    }

    // MARK: Precedence and provenance

    @Test func theFirstLayerWinsATriggerAndEveryItemSaysItsLayer() async throws {
        let fixture = try TeamLibraryFixture()
        let client = try await client(fixture)
        client.open(javascriptURI, language: "javascript", text: "log")
        let list = try await client.complete(javascriptURI, line: 0, character: 3)
        let logs = list.items.filter { $0.label == "log" }
        #expect(logs.map(\.labelDetails?.description) == ["personal", "team"])
        #expect(logs.map(\.detail) == ["Log (mine) (personal)", "Team log (team)"])
        #expect(logs.first?.textEdit.map(newText) == "console.log('mine', $1)")

        // Swapping the order swaps the winner.
        let swapped = try await self.client(fixture, layers: fixture.layers.reversed())
        swapped.open(javascriptURI, language: "javascript", text: "log")
        let reversed = try await swapped.complete(javascriptURI, line: 0, character: 3).items.filter { $0.label == "log" }
        #expect(reversed.map(\.labelDetails?.description) == ["team", "personal"])
    }

    /// With a workspace folder open (as in almost every editor session), the project's snippets join the library
    /// as the last layer and the configured layers keep their order: the first still wins, conflicts with the
    /// project's definitions are reported, and the load message lists every layer.
    @Test func layersKeepTheirOrderWithAWorkspaceFolderOpen() async throws {
        let fixture = try TeamLibraryFixture()
        let workspace = fixture.root + "/workspace"
        try FileManager.default.createDirectory(atPath: workspace + "/.vscode", withIntermediateDirectories: true)
        let projectFile = workspace + "/.vscode/app.code-snippets"
        try #"{ "Project log": { "prefix": "log", "body": "debug($1)", "scope": "javascript" } }"#
            .write(toFile: projectFile, atomically: true, encoding: .utf8)
        // Team first: on alphabetical order alone, "Log (mine)" would come before "Team log".
        let client = TestClient(diskLayers: fixture.layers.reversed())
        let capabilities: JSONValue = [
            "textDocument": ["completion": ["completionItem": ["snippetSupport": true, "labelDetailsSupport": true]]]
        ]
        let loads = Task { try await client.nextLoad() }
        _ = try await client.result("initialize", [
            "processId": .null, "capabilities": capabilities,
            "workspaceFolders": [["uri": .string("file://" + workspace), "name": "w"]],
        ])
        client.notify("initialized", [:])
        let loaded = try await loads.value
        #expect(loaded.contains("layers in precedence order: team"), "\(loaded)")
        #expect(loaded.contains("personal") && loaded.hasSuffix("project"), "\(loaded)")

        client.open(javascriptURI, language: "javascript", text: "log")
        let logs = try await client.complete(javascriptURI, line: 0, character: 3).items.filter { $0.label == "log" }
        #expect(logs.map(\.labelDetails?.description) == ["team", "personal", "project"])

        client.open("file://" + projectFile, language: "json", text: "{}")
        let project = try #require(await client.notification("textDocument/publishDiagnostics"))
        let warning = try #require(project["diagnostics"]?.arrayValue?.first { $0["code"] == "trigger-conflict" })
        #expect(warning["message"]?.stringValue?.contains(fixture.teamFile + ":2 (layer 'team') wins") == true, "\(warning)")
    }

    @Test func aClientWithoutLabelDetailsGetsTheLayerInDetailOnly() async throws {
        let fixture = try TeamLibraryFixture()
        let client = TestClient(diskLayers: fixture.layers)
        try await client.initialize(capabilities: ["textDocument": ["completion": ["completionItem": ["snippetSupport": true]]]])
        client.open(javascriptURI, language: "javascript", text: "overd")
        let item = try #require(try await client.complete(javascriptURI, line: 0, character: 5).items.first)
        #expect(item.labelDetails == nil)
        #expect(item.detail == "Overdue invoice letter (team)")
    }

    @Test func searchNamesTheLayerInTextAndJSON() async throws {
        let fixture = try TeamLibraryFixture()
        let text = await runCommand(["search", "log", "--language", "javascript"] + fixture.flags)
        let lines = text.out.split(separator: "\n").map(String.init)
        #expect(lines.count >= 2)
        #expect(lines[0].hasPrefix("log  Log (mine)") && lines[0].hasSuffix("[personal]"))
        #expect(lines[1].hasPrefix("log  Team log") && lines[1].hasSuffix("[team]"))
        let json = await runCommand(["search", "log", "--language", "javascript", "--json"] + fixture.flags)
        let hits = try JSONValue.parse(Array(json.out.utf8)).arrayValue ?? []
        #expect(hits.prefix(2).map { $0["layer"] } == ["personal", "team"])
    }

    // MARK: Conflicts

    @Test func aTriggerInTwoLayersIsAWarningAtBothDefinitions() async throws {
        let fixture = try TeamLibraryFixture()
        let client = try await client(fixture)
        client.open("file://" + fixture.teamFile, language: "json", text: TeamLibraryFixture.teamSnippets)
        let team = try #require(await client.notification("textDocument/publishDiagnostics"))
        let teamWarning = try #require(team["diagnostics"]?.arrayValue?.first { $0["code"] == "trigger-conflict" })
        #expect(teamWarning["severity"] == 2)
        #expect(teamWarning["range"]?["start"]?["line"] == 1)
        let teamMessage = teamWarning["message"]?.stringValue ?? ""
        #expect(teamMessage.contains("'log'") && teamMessage.contains(fixture.personalFile + ":2 (layer 'personal') wins"))

        client.open("file://" + fixture.personalFile, language: "json", text: TeamLibraryFixture.personalSnippets)
        let personal = try #require(await client.notification("textDocument/publishDiagnostics"))
        let personalWarning = try #require(personal["diagnostics"]?.arrayValue?.first { $0["code"] == "trigger-conflict" })
        let personalMessage = personalWarning["message"]?.stringValue ?? ""
        #expect(personalMessage.contains(fixture.teamFile + ":2 (layer 'team')") && personalMessage.hasSuffix("this one wins"))
    }

    @Test func checkPrintsAndCountsConflictsAndHints() async throws {
        let fixture = try TeamLibraryFixture()
        // The same body under another trigger in the personal layer: a hint at both.
        try """
            { "Chores": { "prefix": "chores", "body": "- [ ] tag\\n- [ ] changelog\\n- [ ] announce" } }
            """.write(toFile: fixture.personal + "/release.code-snippets", atomically: true, encoding: .utf8)
        let run = await runCommand(["check"] + fixture.flags, environment: ["SNIPPETS_READ_ONLY": "team"])
        #expect(run.status == 0)
        let lines = run.out.split(separator: "\n").map(String.init)
        let personalLine = "layer personal: \(fixture.personal), revision files:"
        #expect(lines[0].hasPrefix(personalLine))
        #expect(lines[0].count == personalLine.count + 16)
        #expect(lines[1] == "layer team: \(fixture.team), read-only, revision git:\(fixture.head)")
        #expect(lines.contains { $0.hasPrefix(fixture.teamFile + ":2:3: warning: the trigger 'log' (javascript) is also defined at") })
        #expect(lines.contains { $0.hasPrefix(fixture.personalFile + ":2:3: warning: the trigger 'log' (javascript) is also defined at") })
        #expect(lines.contains { $0.hasPrefix(fixture.personal + "/release.code-snippets:1:3: hint: 'Chores' has the same body as 'Release checklist'") })
        #expect(lines.last == "6 snippets in 3 files, 2 problems (1 trigger conflict), 2 hints")

        let json = try JSONValue.parse(Array(await runCommand(["check", "--json"] + fixture.flags).out.utf8))
        #expect(json["totals"]?["conflicts"] == 1)
        let conflict = try #require(json["conflicts"]?.arrayValue?.first)
        #expect(conflict["trigger"] == "log" && conflict["languages"] == ["javascript"])
        #expect(conflict["definitions"]?.arrayValue?.map { $0["layer"] } == ["personal", "team"])
        #expect(conflict["definitions"]?.arrayValue?.map { $0["path"] } == [.string(fixture.personalFile), .string(fixture.teamFile)])
        #expect(json["layers"]?.arrayValue?.map { $0["name"] } == ["personal", "team"])
    }

    // MARK: Read-only layers

    @Test func savingIntoTheReadOnlyLayerIsRefusedNamingIt() async throws {
        let fixture = try TeamLibraryFixture()
        let target = fixture.team + "/saved.code-snippets"
        let client = try await client(fixture, options: ["saveTo": .string(target)])
        client.open(javascriptURI, language: "javascript", text: "retry(() => fetch(url), 3)")
        let range: JSONValue = ["start": ["line": 0, "character": 0], "end": ["line": 0, "character": 26]]
        let reply = await client.request(
            "workspace/executeCommand",
            ["command": "snippets.saveSelection", "arguments": [["textDocument": ["uri": .string(javascriptURI)], "range": range]]])
        guard case .failure(let error) = reply else {
            Issue.record("expected a refusal, got \(String(describing: reply))")
            return
        }
        #expect(error.message.contains("the library layer 'team'") && error.message.contains("read-only"))
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(await client.server.readOnlyLayer(containing: target)?.name == "team")
        #expect(await client.server.readOnlyLayer(containing: fixture.personal + "/learned.json") == nil)
        #expect(try fixture.git("status", "--porcelain") == "")
    }

    @Test func learningFromASnippetInTheReadOnlyLayerIsRefusedNamingItAndWritesNothing() async throws {
        let fixture = try TeamLibraryFixture()
        let client = try await client(fixture)
        let letter = try #require(await client.server.snapshot.library.snippets.first { $0.title == "Overdue invoice letter" })
        let reply = await client.request(
            "workspace/executeCommand",
            ["command": "snippets.learn", "arguments": [["question": "a customer still owes us money", "id": .string(letter.id.rawValue)]]])
        guard case .failure(let error) = reply else {
            Issue.record("learned into a read-only layer: \(String(describing: reply))")
            return
        }
        #expect(error.message.contains("the library layer 'team'") && error.message.contains("read-only"))
        #expect(!FileManager.default.fileExists(atPath: fixture.team + "/" + ".snippets-learned.json"))
        #expect(try fixture.git("status", "--porcelain", "--ignored") == "")
        // A snippet of the writable layer still learns.
        let thanks = try #require(await client.server.snapshot.library.snippets.first { $0.title == "Thank-you note" })
        let learned = await client.request(
            "workspace/executeCommand",
            ["command": "snippets.learn", "arguments": [["question": "grateful colleague message", "id": .string(thanks.id.rawValue)]]])
        guard case .success = learned else {
            Issue.record("the writable layer refused to learn: \(String(describing: learned))")
            return
        }
        #expect(FileManager.default.fileExists(atPath: fixture.personal + "/" + ".snippets-learned.json"))
    }

    @Test func theDefaultSaveFileIsInTheFirstWritableLayer() throws {
        let fixture = try TeamLibraryFixture()
        let layers = Array(fixture.layers.reversed())  // team (read-only) first
        #expect(try SaveSelection.destination(settings: ServerSettings(), layers: layers, environment: [:]) == fixture.personal + "/saved.code-snippets")
        #expect(throws: ResponseError.self) {
            try SaveSelection.destination(settings: ServerSettings(), layers: [layers[0]], environment: [:])
        }
        // The query learned words and other writers use: a path inside the team checkout, even through a link.
        let link = fixture.personal + "/team-link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fixture.team)
        #expect(LayerLoading.readOnlyLayer(containing: fixture.team + "/x.code-snippets", in: layers)?.name == "team")
        #expect(LayerLoading.readOnlyLayer(containing: link + "/x.code-snippets", in: layers)?.name == "team")
        #expect(LayerLoading.readOnlyLayer(containing: fixture.personal + "/x.code-snippets", in: layers) == nil)
    }

    // MARK: Traceable answers

    @Test func citationsCarryLayerRevisionAndContentHash() async throws {
        let fixture = try TeamLibraryFixture()
        let run = await runCommand(["ask", "overdue invoice letter", "--json"] + fixture.flags)
        let json = try JSONValue.parse(Array(run.out.utf8))
        #expect(try JSONSchemaValidator.load("snippets-ask.result.schema.json").violations(of: json) == [])
        let citation = try #require(json["citations"]?.arrayValue?.first)
        #expect(citation["title"] == "Overdue invoice letter")
        #expect(citation["layer"] == "team")
        #expect(citation["layerRevision"]?.stringValue == "git:" + fixture.head)
        let library = LayerLoading.load(layers: fixture.layers)
        let snippet = try #require(library.snippets.first { $0.title == "Overdue invoice letter" })
        #expect(citation["contentHash"]?.stringValue == snippet.contentHash)
        #expect(json["candidates"]?.arrayValue?.allSatisfy { $0["layer"] == "team" || $0["layer"] == "personal" } == true)
        #expect(await runCommand(["ask", "overdue invoice letter"] + fixture.flags).out.contains("[team git:\(fixture.head)]"))
    }

    @Test func aCommitChangesTheRevisionAndVerifyTellsChangedFromUnchanged() async throws {
        let fixture = try TeamLibraryFixture()
        let first = fixture.head
        let client = try await client(fixture)
        let ask = try await client.result("snippets/ask", ["question": "overdue invoice letter"])
        let citation = try #require(ask["citations"]?.arrayValue?.first)
        #expect(citation["layerRevision"]?.stringValue == "git:" + first)
        let releaseAsk = try await client.result("snippets/ask", ["question": "release checklist"])
        let releaseCitation = try #require(releaseAsk["citations"]?.arrayValue?.first)
        #expect(releaseCitation["title"] == "Release checklist")

        // A teammate changes the letter; the pull leaves the files edited and the commit moved.
        try fixture.editTeamFile { $0.replacingOccurrences(of: "within 7 days", with: "within 14 days") }
        try fixture.commit("Longer payment term")
        let second = fixture.head
        #expect(second != first)
        client.notify("workspace/didChangeWatchedFiles", ["changes": [["uri": .string("file://" + fixture.teamFile), "type": 2]]])
        try await client.nextLoad()

        let again = try await client.result("snippets/ask", ["question": "overdue invoice letter"])
        #expect(again["citations"]?.arrayValue?.first?["layerRevision"]?.stringValue == "git:" + second)

        let gone: JSONValue = ["id": "s0000000000000000", "contentHash": "sha1:00"]
        let verdicts = try await client.result("snippets/verifyCitations", ["citations": [citation, releaseCitation, gone]])
        #expect(try JSONSchemaValidator.load("snippets-verifyCitations.result.schema.json").violations(of: verdicts) == [])
        let statuses = verdicts["citations"]?.arrayValue?.map { $0["status"]?.stringValue ?? "" }
        #expect(statuses == ["changed", "unchanged", "gone"])
        #expect(verdicts["citations"]?.arrayValue?.first?["layerRevision"]?.stringValue == "git:" + second)
    }

    @Test func aCommitOutsideTheLayerFolderIsPickedUpByPolling() async throws {
        let fixture = try TeamLibraryFixture()
        // The layer is a sub-folder of the repository: `.git` is outside every watched library path.
        let sub = fixture.team + "/snippets"
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: fixture.teamFile, toPath: sub + "/javascript.json")
        try fixture.commit("Move into snippets/")
        let before = fixture.head
        let client = TestClient(polling: true, diskLayers: [LibraryLayer(path: sub, name: "team", isReadOnly: true)])
        try await client.initialize()
        let first = try await client.result("snippets/ask", ["question": "overdue invoice letter"])
        #expect(first["citations"]?.arrayValue?.first?["layerRevision"]?.stringValue == "git:" + before)
        // A pull that only brings a README beside the folder: no file under the layer changes, but HEAD moves.
        try "Team snippets\n".write(toFile: fixture.team + "/README.md", atomically: true, encoding: .utf8)
        try fixture.commit("Readme")
        var revision: String?
        for _ in 0..<5 {
            try await client.nextLoad()
            let after = try await client.result("snippets/ask", ["question": "overdue invoice letter"])
            revision = after["citations"]?.arrayValue?.first?["layerRevision"]?.stringValue
            if revision == "git:" + fixture.head { break }
        }
        #expect(revision == "git:" + fixture.head)
        #expect(fixture.head != before)
    }

    @Test func verifyCitationsExampleDecodesAndValidates() throws {
        let bytes = try [UInt8](Data(contentsOf: packageRoot.appendingPathComponent("protocol/examples/snippets-verifyCitations.json")))
        let example = try JSONValue.parse(bytes)
        let params = try #require(example["params"])
        let result = try #require(example["result"])
        #expect(try JSONSchemaValidator.load("snippets-verifyCitations.params.schema.json").violations(of: params) == [])
        #expect(try JSONSchemaValidator.load("snippets-verifyCitations.result.schema.json").violations(of: result) == [])
        let decoded = try params.decode(VerifyCitationsParams.self)
        #expect(decoded.citations.count == 3)
        #expect(try JSONValue(encoding: try result.decode(VerifyCitationsResult.self)) == result, "re-encodes unchanged")
        #expect(result["citations"]?.arrayValue?.map { $0["status"] } == ["changed", "unchanged", "gone"])
    }

    @Test func theServerWatchesTheTeamRepositorysHeadAndAdvertisesVerify() async throws {
        let fixture = try TeamLibraryFixture()
        let client = TestClient(diskLayers: fixture.layers)
        let reply = try await client.initialize(capabilities: ["workspace": ["didChangeWatchedFiles": ["dynamicRegistration": true]]])
        #expect(reply["capabilities"]?["experimental"]?["snippetsVerifyCitations"] == true)
        #expect(reply["capabilities"]?["experimental"]?["snippetsAsk"] == true)
        let registration = try #require(await client.notification("client/registerCapability"))
        let watchers = registration["registrations"]?.arrayValue?.first?["registerOptions"]?["watchers"]?.arrayValue ?? []
        let patterns = watchers.compactMap { $0["globPattern"]?.stringValue }
        #expect(patterns.contains(fixture.team + "/.git/HEAD"))
        #expect(patterns.contains(fixture.team + "/.git/refs/**/*"))
        let loaded = client.stderr.all.first { $0.hasPrefix("snippets-lsp: loaded ") } ?? ""
        #expect(loaded.contains("; layers in precedence order: personal (files:"))
        #expect(loaded.hasSuffix(", team (read-only, git:\(fixture.head))"))
    }

    @Test func uncommittedChangesAreMarkedAndAnotherCommitClearsThem() throws {
        let fixture = try TeamLibraryFixture()
        func revision() -> String { LayerLoading.load(layers: fixture.layers).layerRevisions["team"]?.text ?? "" }
        #expect(revision() == "git:" + fixture.head)
        try fixture.editTeamFile { $0.replacingOccurrences(of: "logger.info", with: "logger.debug") }
        #expect(revision() == "git:" + fixture.head + "+modified")
        try fixture.commit("Debug level")
        #expect(revision() == "git:" + fixture.head)
        // A new, untracked snippet file is an uncommitted change too; a README is not.
        try "x".write(toFile: fixture.team + "/README.md", atomically: true, encoding: .utf8)
        #expect(revision() == "git:" + fixture.head)
        try "{}".write(toFile: fixture.team + "/go.json", atomically: true, encoding: .utf8)
        #expect(revision() == "git:" + fixture.head + "+modified")
        try FileManager.default.removeItem(atPath: fixture.team + "/go.json")
        // A deleted tracked snippet file too.
        try FileManager.default.removeItem(atPath: fixture.teamFile)
        #expect(revision() == "git:" + fixture.head + "+modified")
    }

    @Test func gitStateIsReadFromPackedRefsIndexV4AndLinkedWorktrees() throws {
        let fixture = try TeamLibraryFixture()
        let head = fixture.head
        try fixture.git("pack-refs", "--all")
        try fixture.git("update-index", "--index-version", "4")
        #expect(!FileManager.default.fileExists(atPath: fixture.team + "/.git/refs/heads/main"))
        let layer = LibraryLayer(path: fixture.team, name: "team")
        let library = LayerLoading.load(layers: [layer])
        #expect(library.layerRevisions["team"]?.text == "git:" + head)

        let linked = fixture.root + "/linked"
        try fixture.git("worktree", "add", "-q", "-b", "other", linked)
        try "{ \"A\": { \"prefix\": \"a\", \"body\": \"alpha\" } }".write(toFile: linked + "/extra.code-snippets", atomically: true, encoding: .utf8)
        try fixture.git("add", "-A", in: linked)
        try fixture.git("commit", "-q", "-m", "extra", in: linked)
        let linkedHead = try fixture.git("rev-parse", "HEAD", in: linked)
        let revision = LayerLoading.load(layers: [LibraryLayer(path: linked, name: "linked")]).layerRevisions["linked"]
        #expect(revision?.text == "git:" + linkedHead)
        #expect(linkedHead != head)

        // A sub-folder of a repository is a layer at the repository's commit.
        try FileManager.default.createDirectory(atPath: fixture.team + "/sub", withIntermediateDirectories: true)
        try "{ \"B\": { \"prefix\": \"b\", \"body\": \"beta\" } }".write(toFile: fixture.team + "/sub/b.code-snippets", atomically: true, encoding: .utf8)
        try fixture.commit("sub")
        let sub = LayerLoading.load(layers: [LibraryLayer(path: fixture.team + "/sub", name: "sub")]).layerRevisions["sub"]
        #expect(sub?.text == "git:" + fixture.head)

        // A layer reached through a symbolic link to a folder inside the repository (no `.git` above the link).
        let link = fixture.root + "/sub-link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fixture.team + "/sub")
        let throughLink = LayerLoading.load(layers: [LibraryLayer(path: link, name: "through-link")]).layerRevisions["through-link"]
        #expect(throughLink?.text == "git:" + fixture.head)
    }

    @Test func aFolderOutsideGitHasAHashOfItsFiles() throws {
        let fixture = try TeamLibraryFixture()
        func revision() -> String { LayerLoading.load(layers: fixture.layers).layerRevisions["personal"]?.text ?? "" }
        let before = revision()
        #expect(before.hasPrefix("files:") && before.count == "files:".count + 16)
        #expect(revision() == before)
        try (TeamLibraryFixture.personalSnippets + "\n").write(toFile: fixture.personalFile, atomically: true, encoding: .utf8)
        #expect(revision() != before)
    }

    @Test func hostileGitFilesFallBackWithoutCrashing() throws {
        let fixture = try TeamLibraryFixture()
        let layer = LibraryLayer(path: fixture.team, name: "team")
        // A HEAD pointing outside refs, then garbage in the index.
        try "ref: ../../../etc/passwd\n".write(toFile: fixture.team + "/.git/HEAD", atomically: true, encoding: .utf8)
        #expect(LayerLoading.load(layers: [layer]).layerRevisions["team"]?.kind == .files)
        try "ref: refs/heads/main\n".write(toFile: fixture.team + "/.git/HEAD", atomically: true, encoding: .utf8)
        try Data("DIRC\0\0\0\u{2}\u{7f}\u{ff}\u{ff}\u{ff}junk".utf8).write(to: URL(fileURLWithPath: fixture.team + "/.git/index"))
        let revision = LayerLoading.load(layers: [layer]).layerRevisions["team"]
        #expect(revision?.commit == fixture.head && revision?.hasUncommittedChanges == nil)
        #expect(
            GitRevision.scanIndex(
                Array("DIRC".utf8) + [0, 0, 0, 4, 0, 0, 0, 1] + [UInt8](repeating: 0xff, count: 70), layerPrefix: "",
                layerRoot: fixture.team, workTree: fixture.team, loaded: []) == nil)
    }

    private func newText(_ edit: CompletionTextEdit) -> String {
        switch edit {
        case .textEdit(let edit): edit.newText
        case .insertReplace(let edit): edit.newText
        }
    }
}

/// Layer names and roles from flags, the environment and the `libraries` setting.
@Suite struct LibraryLayerSettingsTests {
    @Test func flagsAndEnvironmentTakeNameEqualsPath() {
        let environment = ["HOME": "/home/me", "SNIPPETS_READ_ONLY": "team"]
        let paths = LibraryPaths.resolve(
            flags: ["personal=~/snips", "team=/srv/team", "/plain/dir", "./odd=name"], environment: environment, currentDirectory: "/cwd")
        #expect(paths.layers == [
            LibraryLayer(path: "/home/me/snips", name: "personal"), LibraryLayer(path: "/srv/team", name: "team", isReadOnly: true),
            LibraryLayer(path: "/plain/dir"), LibraryLayer(path: "/cwd/odd=name"),
        ])
        #expect(paths.layers.map(\.name) == ["personal", "team", "dir", "library"])
        let variable = LibraryPaths.resolve(flags: [], environment: ["SNIPPETS_LIBRARY": "me=/a:team=/b:/c/snippets"], currentDirectory: "/")
        #expect(variable.layers.map(\.name) == ["me", "team", "snippets"])
        #expect(variable.layers[2].isNamed == false)
        let readOnly = LibraryPaths.resolve(flags: ["a=/x", "b=/y"], environment: [:], currentDirectory: "/", readOnly: ["b"])
        #expect(readOnly.layers.map(\.isReadOnly) == [false, true])
        #expect(readOnly.unknownLayerNames(["b", "c"]) == ["c"])
        let duplicate = LibraryPaths.resolve(flags: ["x=/1", "x=/2"], environment: [:], currentDirectory: "/")
        #expect(duplicate.layers.map(\.name) == ["x", "x-2"])
    }

    @Test func settingEntriesAreStringsOrObjectsAndBadOnesAreNamed() {
        let (settings, problems) = ServerSettings().applying([
            "libraries": [
                "~/snippets", "team=/srv/team", ["path": "/srv/shared", "name": "shared", "readOnly": true],
                ["path": "/srv/other", "readOnly": "yes", "colour": 1], ["name": "nameless"], 7,
            ]
        ])
        #expect(settings.libraries == [
            LibraryLayer(path: "~/snippets"), LibraryLayer(path: "/srv/team", name: "team"),
            LibraryLayer(path: "/srv/shared", name: "shared", isReadOnly: true), LibraryLayer(path: "/srv/other", isReadOnly: true),
        ])
        #expect(problems.map(\.name) == ["libraries[3].readOnly", "libraries[3].colour", "libraries[4].path", "libraries[5]"])
        #expect(problems.allSatisfy { $0.message.hasPrefix("setting 'snippets.\($0.name)'") })
    }
}
