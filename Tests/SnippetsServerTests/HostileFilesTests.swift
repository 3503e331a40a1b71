import Foundation
import SnippetsCore
import TestSupport
import Testing

@testable import SnippetsServer

/// A git work tree made by hand (no `git`): `HEAD` on `main`, the commit in a loose ref or `packed-refs`, an index
/// written byte by byte, and one snippet file.
final class HandMadeRepository: Sendable {
    let root: String
    var snippetFile: String { root + "/s.code-snippets" }
    static let commit = "0123456789abcdef0123456789abcdef01234567"

    init() throws {
        root = NSTemporaryDirectory() + "hand-made-git-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root + "/.git/refs/heads", withIntermediateDirectories: true)
        try "ref: refs/heads/main\n".write(toFile: root + "/.git/HEAD", atomically: true, encoding: .utf8)
        try #"{"Greeting": {"prefix": "hi", "body": "Hello there"}}"#.write(toFile: snippetFile, atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    var layer: LibraryLayer { LibraryLayer(path: root, name: "team") }

    func revision() -> LayerRevision {
        let library = LibraryLoader(fileSystem: DiskFileSystem()).load(layers: [layer])
        return GitRevision.revision(of: layer, files: library.files)
    }

    func writeLooseRef(_ id: String = commit) throws {
        try (id + "\n").write(toFile: root + "/.git/refs/heads/main", atomically: true, encoding: .utf8)
    }

    /// `packed-refs` with `count` tags before `refs/heads/main` (the line looked for comes last), dated an hour
    /// ago, as a clone's is.
    func writePackedRefs(tags count: Int, main id: String = commit) throws {
        var text = "# pack-refs with: peeled fully-peeled sorted \n"
        text.reserveCapacity(count * 64)
        for number in 0..<count { text += String(format: "%040x refs/tags/v%09d\n", number, number) }
        text += id + " refs/heads/main\n"
        try text.write(toFile: root + "/.git/packed-refs", atomically: true, encoding: .utf8)
        var times = [timeval(tv_sec: time(nil) - 3600, tv_usec: 0), timeval(tv_sec: time(nil) - 3600, tv_usec: 0)]
        _ = utimes(root + "/.git/packed-refs", &times)
    }

    /// One version-4 path as git writes it: how many bytes of the previous path to drop, then what follows.
    struct CompressedPath {
        var drop: Int
        var suffix: [UInt8]
    }

    /// A version-4 index of `paths` (in git's order), then the snippet file's true entry (it sorts after them), so
    /// the file reads as unchanged only when the whole index was read. Written without ever holding the paths.
    func writeIndexV4(paths: [CompressedPath]) throws {
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: snippetFile)))
        let stamp = try #require(GitRevision.stamp(of: snippetFile))
        let id = Array(SHA1.gitBlobID(bytes).utf8)
        var objectID: [UInt8] = []
        for start in stride(from: 0, to: id.count, by: 2) {
            let digits = String(decoding: id[start..<(start + 2)], as: UTF8.self)
            objectID.append(UInt8(digits, radix: 16) ?? 0)
        }
        var index = Array("DIRC".utf8) + [0, 0, 0, 4] + BenchCommand.bigEndian(UInt32(paths.count + 1))
        index.reserveCapacity(paths.count * 70)
        var length = 0
        func append(_ path: CompressedPath, stamp: GitRevision.Stamp? = nil) {
            var entry = [UInt8](repeating: 0, count: 62)
            if let stamp {
                entry.replaceSubrange(8..<12, with: BenchCommand.bigEndian(stamp.seconds))
                entry.replaceSubrange(12..<16, with: BenchCommand.bigEndian(stamp.nanoseconds))
                entry.replaceSubrange(36..<40, with: BenchCommand.bigEndian(stamp.size))
                entry.replaceSubrange(40..<60, with: objectID)
            }
            length += path.suffix.count - path.drop
            entry[60] = UInt8(min(length, 0xFFF) >> 8)
            entry[61] = UInt8(min(length, 0xFFF) & 0xFF)
            index += entry
            index += BenchCommand.varint(path.drop)
            index += path.suffix
            index.append(0)
        }
        for path in paths { append(path) }
        append(CompressedPath(drop: length, suffix: Array("s.code-snippets".utf8)), stamp: stamp)
        index += [UInt8](repeating: 0, count: 20)  // the checksum (not checked)
        try Data(index).write(to: URL(fileURLWithPath: root + "/.git/index"))
    }
}

@Suite(.serialized) struct HostileFilesTests {
    // MARK: The JSON reader

    /// `0.000…01` in a `$/cancelRequest`: stripping leading zeros one at a time made this quadratic (a million
    /// zeros took 6.9 s). How its cost grows is `snippets-lsp bench --hostile`'s "long numbers" figure; here, that
    /// such numbers read as the values they are.
    @Test func aLongNumberIsReadAsItsValue() throws {
        let message = Array(("{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":0." + String(repeating: "0", count: 400_000) + "1}}").utf8)
        #expect(try JSONValue.parse(message)["params"]?["id"] == .double(0))
        #expect(try JSONValue.parse(Array("[1\(String(repeating: "0", count: 18)).\(String(repeating: "0", count: 100_000))]".utf8)) == [.int(1_000_000_000_000_000_000)])
    }

    // MARK: The git index

    /// A version-4 index whose every path is the previous one plus a byte: keeping every path cost 240 MB for 1.3 MB
    /// of index, and time quadratic in its size. How its cost grows is `snippets-lsp bench --hostile`'s "git index"
    /// figure; here, that such an index stops at a path longer than git allows, and that an index of many long paths
    /// below that limit is read to its end.
    @Test func aHostileVersion4IndexIsReadOrRefused() async throws {
        let repository = try HandMadeRepository()
        // Seconds of reading in a debug build: on a thread of its own, off the cooperative pool (see `onOwnThread`).
        let (afterGrowing, afterSawtooth) = try await onOwnThread { try Self.version4IndexRevisions(repository) }
        #expect(afterGrowing.kind == .git && afterGrowing.commit == HandMadeRepository.commit)
        #expect(afterSawtooth.text == "git:" + HandMadeRepository.commit, "the snippet file's entry after them was found")
    }

    /// The revisions read after a version-4 index of paths growing past git's limit, then of paths up to 2,000 bytes.
    private static func version4IndexRevisions(_ repository: HandMadeRepository) throws -> (LayerRevision, LayerRevision) {
        try repository.writeLooseRef()
        // "a", "aa", "aaa", …: each entry adds one byte to the path before it, past 4,096 bytes.
        try repository.writeIndexV4(paths: [HandMadeRepository.CompressedPath](repeating: .init(drop: 0, suffix: [UInt8(ascii: "a")]), count: 5_000))
        let afterGrowing = repository.revision()
        // Paths up to 2,000 bytes, each sharing all but its last byte with the one before.
        try repository.writeIndexV4(paths: (0..<8_000).map { (number: Int) -> HandMadeRepository.CompressedPath in
            guard number % 2_000 == 0 else { return HandMadeRepository.CompressedPath(drop: 0, suffix: [UInt8(ascii: "a")]) }
            let start: [UInt8] = Array(String(format: "d%06d/a", number / 2_000).utf8)
            return HandMadeRepository.CompressedPath(drop: number == 0 ? 0 : 2_008, suffix: start)
        })
        return (afterGrowing, repository.revision())
    }

    // MARK: Re-reading git files

    /// A 64 MB `packed-refs` made each save take 5 s: every reload re-read and re-parsed it. Once read, reloads
    /// read it no more while the file stays the same; a changed file is read again.
    @Test func aLargePackedRefsIsNotReadAgainWhileItStaysTheSame() throws {
        let repository = try HandMadeRepository()
        try repository.writePackedRefs(tags: 200_000)
        #expect(repository.revision().commit == HandMadeRepository.commit)
        // Counted on a cache of the test's own: the shared one answers every other test too.
        let cache = GitFileCache()
        let path = repository.root + "/.git/packed-refs"
        for _ in 0..<3 { #expect(cache.packedRef("refs/heads/main", path: path) == HandMadeRepository.commit) }
        #expect(cache.filesRead == 1, "three reloads of an unchanged packed-refs read it \(cache.filesRead) times")
        // A pull rewrites it: the new commit is seen.
        let next = "89abcdef0123456789abcdef0123456789abcdef"
        try repository.writePackedRefs(tags: 200_000, main: next)
        #expect(cache.packedRef("refs/heads/main", path: path) == next)
        #expect(cache.filesRead == 2, "the rewritten packed-refs was not read once more")
        #expect(repository.revision().commit == next)
    }

    // MARK: Learned words

    @Test func aLearnedWordsFileLinkingOutOfTheLibraryIsNotWritten() async throws {
        let fixture = try TeamLibraryFixture()
        let outside = fixture.root + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let settings = "{\n  \"editor.fontSize\": 14\n}\n"
        try settings.write(toFile: outside + "/settings.json", atomically: true, encoding: .utf8)
        let link = fixture.personal + "/" + LearnedWords.fileName
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "../outside/settings.json")
        let environment = ["SNIPPETS_READ_ONLY": "team"]

        let learned = await runCommand(["learn", "grateful colleague message", "--snippet", "Thank-you note"] + fixture.flags, environment: environment)
        #expect(learned.status == 1)
        #expect(learned.err.contains("is a link to") && learned.err.contains("nothing was written"), "\(learned.err)")
        #expect(try String(contentsOfFile: outside + "/settings.json", encoding: .utf8) == settings)

        // The editor's command too.
        let client = TestClient(diskLayers: fixture.layers)
        try await client.initialize()
        let thanks = try #require(await client.server.snapshot.library.snippets.first { $0.title == "Thank-you note" })
        let reply = await client.request(
            "workspace/executeCommand",
            ["command": "snippets.learn", "arguments": [["question": "grateful colleague message", "id": .string(thanks.id.rawValue)]]])
        guard case .failure(let error) = reply else {
            Issue.record("learned through a link out of the library: \(String(describing: reply))")
            return
        }
        #expect(error.message.contains("is a link to"))
        #expect(try String(contentsOfFile: outside + "/settings.json", encoding: .utf8) == settings)
    }

    @Test func aLearnedWordsFileLinkingIntoAReadOnlyLayerIsRefused() async throws {
        let fixture = try TeamLibraryFixture()
        let teamLearned = fixture.team + "/" + LearnedWords.fileName
        let teamText = "{\n  \"javascript.json\": {\n    \"Team log\": [\"audit\"]\n  }\n}\n"
        try teamText.write(toFile: teamLearned, atomically: true, encoding: .utf8)
        try fixture.commit("Learned words")
        try FileManager.default.createSymbolicLink(atPath: fixture.personal + "/" + LearnedWords.fileName, withDestinationPath: teamLearned)

        let learned = await runCommand(
            ["learn", "grateful colleague message", "--snippet", "Thank-you note"] + fixture.flags, environment: ["SNIPPETS_READ_ONLY": "team"])
        #expect(learned.status == 1, "\(learned.out)")
        #expect(try String(contentsOfFile: teamLearned, encoding: .utf8) == teamText)
        #expect(try fixture.git("status", "--porcelain") == "")
    }

    /// A team layer's learned-words file with a key `../personal/mine.code-snippets` taught the user's own snippet.
    @Test func aLearnedWordsFileSpeaksOnlyForItsOwnFolderAndLayer() async throws {
        let fixture = try TeamLibraryFixture()
        try """
            {
              "../personal/mine.code-snippets": { "Thank-you note": ["zebra", "quokka"] },
              "javascript.json": { "Release checklist": ["shipping"] }
            }
            """.write(toFile: fixture.team + "/" + LearnedWords.fileName, atomically: true, encoding: .utf8)
        let library = LayerLoading.load(layers: fixture.layers)
        let learned = LearnedWordsStore.load(paths: fixture.layers.map(\.path), library: library)
        let thanks = try #require(library.snippets.first { $0.title == "Thank-you note" })
        let release = try #require(library.snippets.first { $0.title == "Release checklist" })
        #expect(learned.words(for: thanks.id) == [])
        #expect(learned.words(for: release.id) == ["shipping"])
        #expect(learned.diagnostics.map(\.code.rawValue) == ["learned-outside-folder"])
        let ask = await runCommand(["ask", "zebra quokka"] + fixture.flags)
        #expect(!ask.out.contains("Thank-you note"), "\(ask.out)")
        #expect(!ask.out.contains("Matched words you used before"))

        // Nor may a folder's file teach a layer nested inside it.
        let nested = fixture.personal + "/nested"
        try FileManager.default.createDirectory(atPath: nested, withIntermediateDirectories: true)
        try #"{"Inner": {"prefix": "inner", "body": "inner"}}"#.write(toFile: nested + "/n.code-snippets", atomically: true, encoding: .utf8)
        try #"{"nested/n.code-snippets": {"Inner": ["walrus"]}}"#.write(toFile: fixture.personal + "/" + LearnedWords.fileName, atomically: true, encoding: .utf8)
        let layers = [LibraryLayer(path: nested, name: "inner"), LibraryLayer(path: fixture.personal, name: "outer")]
        let nestedLibrary = LayerLoading.load(layers: layers)
        let nestedLearned = LearnedWordsStore.load(paths: layers.map(\.path), library: nestedLibrary)
        #expect(nestedLearned.isEmpty)
    }

    @Test func forgettingLeavesReadOnlyLayersAndForgetsInWritableOnes() async throws {
        let fixture = try TeamLibraryFixture()
        let teamLearned = fixture.team + "/" + LearnedWords.fileName
        let teamText = "{\n  \"javascript.json\": {\n    \"Team log\": [\"zebra\", \"audit\"]\n  }\n}\n"
        try teamText.write(toFile: teamLearned, atomically: true, encoding: .utf8)
        let personalLearned = fixture.personal + "/" + LearnedWords.fileName
        try "{\n  \"mine.code-snippets\": {\n    \"Thank-you note\": [\"zebra\", \"grateful\"]\n  }\n}\n"
            .write(toFile: personalLearned, atomically: true, encoding: .utf8)
        let environment = ["SNIPPETS_READ_ONLY": "team"]

        let forgot = await runCommand(["learn", "--forget", "zebra"] + fixture.flags, environment: environment)
        #expect(forgot.status == 0, "\(forgot.err)")
        #expect(forgot.out == "Forgot 1 learned word.\nLeft 1 learned word in \(teamLearned): it is in a read-only library layer.\n")
        #expect(try String(contentsOfFile: teamLearned, encoding: .utf8) == teamText)
        let personal = try String(contentsOfFile: personalLearned, encoding: .utf8)
        #expect(personal.contains("\"grateful\"") && !personal.contains("zebra"))

        let json = await runCommand(["learn", "--forget", "--snippet", "Team log", "--json"] + fixture.flags, environment: environment)
        #expect(json.status == 0)
        #expect(try JSONValue.parse(Array(json.out.utf8)) == ["forgotten": 0, "leftReadOnly": [["file": .string(teamLearned), "words": 2]]])
    }
}

/// Readers over hostile input keep what they should. How their cost grows with input (an espanso match's
/// references, `snippet!` and `clearsnippets`, a JSON file broken at every entry, a long `.yas-parents`) is
/// `snippets-lsp bench --hostile`'s figures, not a timed test.
struct HostileReaderTests {
    /// Overrides resolved through the index remove exactly what they removed by scanning: `snippet!` only what came
    /// before it (a chain replaces each in turn), `snippet!!` its whole file's trigger, `clearsnippets` by priority
    /// wherever the snippet is, each note listing its victims in load order.
    @Test func overridesRemoveExactlyWhatTheyDid() {
        let snipMate = LibraryLoader(fileSystem: InMemoryFileSystem(files: [
            "/lib/snippets/c.snippets": "snippet for\n\tone\nsnippet for\n\ttwo\nsnippet main\n\tm\n",
            "/lib/snippets/c/mine.snippets": "snippet! for\n\tthree\nsnippet! for\n\tfour\nsnippet!! main\nsnippet main\n\tlater\nsnippet! x\n\tx\n",
            "/lib/snippets/python.snippets": "snippet for\n\tpython keeps its own\n",
        ])).load(paths: ["/lib"])
        #expect(snipMate.snippets.map { "\($0.scopes)\($0.triggers)\($0.body)" }.sorted() == [
            #"["c"]["for"]four"#, #"["c"]["x"]x"#, #"["python"]["for"]python keeps its own"#,
        ])
        #expect(snipMate.diagnostics.map(\.message).filter { $0.hasPrefix("'snippet") } == [
            "'snippet!' replaces the earlier snippet(s) at /lib/snippets/c.snippets:1, /lib/snippets/c.snippets:3 with trigger 'for'",
            "'snippet!' replaces the earlier snippet(s) at line 1 with trigger 'for'",
            "'snippet!!' removes the earlier snippet(s) at /lib/snippets/c.snippets:5, line 6 with trigger 'main'",
            "'snippet!' replaces no earlier snippet with trigger 'x'",
        ])

        let ultiSnips = LibraryLoader(fileSystem: InMemoryFileSystem(files: [
            "/lib/UltiSnips/python.snippets": "priority -5\nclearsnippets\npriority 0\nclearsnippets if\nsnippet if\nmine\nendsnippet\n",
            "/lib/UltiSnips/python/more.snippets": "priority -10\nsnippet if\nlow\nendsnippet\nsnippet def\nlow def\nendsnippet\npriority 5\nsnippet def\nhigh def\nendsnippet\n",
        ])).load(paths: ["/lib"])
        #expect(ultiSnips.snippets.map { "\($0.triggers)\($0.body)" }.sorted() == [#"["def"]high def"#])
        #expect(ultiSnips.diagnostics.map(\.message).filter { $0.hasPrefix("'clearsnippets'") } == [
            "'clearsnippets' removes the snippet(s) at /lib/UltiSnips/python/more.snippets:2, /lib/UltiSnips/python/more.snippets:5 (priority -5 or lower)",
            "'clearsnippets' removes the snippet(s) at line 5 with trigger 'if' (priority 0 or lower)",
        ])
    }

    /// A `.code-snippets` file of 1,000 entries, each missing its comma and followed by a stray word and a stray
    /// closer of the wrong kind: every mistake is read past.
    @Test func aJSONFileBrokenAtEveryEntryKeepsThemAll() {
        let entries = (0..<1_000).map { #""e\#($0)": { "prefix": "p\#($0)", "body": ["x", "y" } oops ]"# }
        let files = ["/lib/broken.code-snippets": "{\n" + entries.joined(separator: "\n") + "\n}\n"]
        let library = LibraryLoader(fileSystem: InMemoryFileSystem(files: files)).load(paths: ["/lib"])
        #expect(library.snippets.count == 1_000)
        #expect(library.snippets.last?.body == "x\ny")
        #expect(library.diagnostics.filter { $0.code == .jsonSyntax }.count == JSONC.maximumErrors + 1)
    }
}
