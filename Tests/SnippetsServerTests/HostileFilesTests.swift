import Foundation
import SnippetsCore
import TestSupport
import Testing

@testable import SnippetsServer

/// The least thread CPU time `work` took over `repeats` runs (`prepare` runs before each, untimed).
func leastCPU(repeats: Int = 3, prepare: () throws -> Void = {}, _ work: () throws -> Void) rethrows -> UInt64 {
    var least = UInt64.max
    for _ in 0..<repeats {
        try prepare()
        let start = threadCPUNanoseconds()
        try work()
        least = min(least, max(threadCPUNanoseconds() - start, 1))
    }
    return least
}

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

    /// Git's varint for a version-4 path's "bytes to drop".
    static func varint(_ value: Int) -> [UInt8] {
        var value = value
        var bytes = [UInt8(value & 127)]
        value >>= 7
        while value != 0 {
            value -= 1
            bytes.insert(UInt8(128 | (value & 127)), at: 0)
            value >>= 7
        }
        return bytes
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
        var index = Array("DIRC".utf8) + [0, 0, 0, 4] + bigEndian(UInt32(paths.count + 1))
        index.reserveCapacity(paths.count * 70)
        var length = 0
        func append(_ path: CompressedPath, stamp: GitRevision.Stamp? = nil) {
            var entry = [UInt8](repeating: 0, count: 62)
            if let stamp {
                entry.replaceSubrange(8..<12, with: bigEndian(stamp.seconds))
                entry.replaceSubrange(12..<16, with: bigEndian(stamp.nanoseconds))
                entry.replaceSubrange(36..<40, with: bigEndian(stamp.size))
                entry.replaceSubrange(40..<60, with: objectID)
            }
            length += path.suffix.count - path.drop
            entry[60] = UInt8(min(length, 0xFFF) >> 8)
            entry[61] = UInt8(min(length, 0xFFF) & 0xFF)
            index += entry
            index += Self.varint(path.drop)
            index += path.suffix
            index.append(0)
        }
        for path in paths { append(path) }
        append(CompressedPath(drop: length, suffix: Array("s.code-snippets".utf8)), stamp: stamp)
        index += [UInt8](repeating: 0, count: 20)  // the checksum (not checked)
        try Data(index).write(to: URL(fileURLWithPath: root + "/.git/index"))
    }

    private func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}

@Suite(.serialized) struct HostileFilesTests {
    // MARK: The JSON reader

    /// `0.000…01` in a `$/cancelRequest`: stripping leading zeros one at a time made this quadratic (a million
    /// zeros took 6.9 s). Linear: sixteen times the zeros cost about sixteen times as much, quadratic 256.
    @Test func aLongNumberIsReadInTimeLinearInItsLength() throws {
        func message(_ zeros: Int) -> [UInt8] {
            Array(("{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":0." + String(repeating: "0", count: zeros) + "1}}").utf8)
        }
        let small = message(25_000)
        let large = message(400_000)
        #expect(try JSONValue.parse(large)["params"]?["id"] == .double(0))
        #expect(try JSONValue.parse(Array("[1\(String(repeating: "0", count: 18)).\(String(repeating: "0", count: 100_000))]".utf8)) == [.int(1_000_000_000_000_000_000)])
        let smallCost = try leastCPU { _ = try JSONValue.parse(small) }
        let largeCost = try leastCPU { _ = try JSONValue.parse(large) }
        let ratio = Double(largeCost) / Double(smallCost)
        #expect(ratio < 48, "25,000 zeros: \(smallCost / 1000) µs, 400,000: \(largeCost / 1000) µs, ratio \(ratio) (linear: about 16)")
    }

    // MARK: The git index

    /// A version-4 index whose every path is the previous one plus a byte: keeping every path cost 240 MB for 1.3 MB
    /// of index, and time quadratic in its size. Now four times the index costs about four times as much (or stops
    /// early at a path longer than git allows), and an index of many long paths below that limit is read to its end.
    @Test func aHostileVersion4IndexCostsTimeLinearInItsSize() async throws {
        let repository = try HandMadeRepository()
        // Tens of seconds of reading: on a Dispatch thread (the CPU time measured is that thread's), never on the
        // cooperative pool, whose two threads on two cores the other tests' timers and replies need.
        let figures = try await onOwnThread { try Self.version4IndexCosts(repository) }
        #expect(figures.ratio < 8, "5,000 growing paths: \(figures.small / 1_000_000) ms, 20,000: \(figures.large / 1_000_000) ms, ratio \(figures.ratio)")
        #expect(figures.revisionAfterGrowing.kind == .git && figures.revisionAfterGrowing.commit == HandMadeRepository.commit)
        #expect(figures.revisionAfterSawtooth.text == "git:" + HandMadeRepository.commit, "the snippet file's entry after them was found")
        #expect(figures.sawtoothRatio < 8, "8,000 paths: \(figures.shorter / 1_000_000) ms, 32,000: \(figures.longer / 1_000_000) ms, ratio \(figures.sawtoothRatio)")
    }

    /// The CPU time of reading a version 4 index of growing paths and of paths up to 2,000 bytes long, each at two
    /// sizes, and the revisions read after each.
    private static func version4IndexCosts(_ repository: HandMadeRepository) throws -> (
        small: UInt64, large: UInt64, ratio: Double, revisionAfterGrowing: LayerRevision,
        shorter: UInt64, longer: UInt64, sawtoothRatio: Double, revisionAfterSawtooth: LayerRevision
    ) {
        try repository.writeLooseRef()
        // "a", "aa", "aaa", …: each entry adds one byte to the path before it.
        func growing(_ count: Int) -> [HandMadeRepository.CompressedPath] {
            [HandMadeRepository.CompressedPath](repeating: .init(drop: 0, suffix: [UInt8(ascii: "a")]), count: count)
        }
        func cost(_ paths: [HandMadeRepository.CompressedPath]) throws -> UInt64 {
            // A fresh index each time: what the server reads on a reload after a checkout.
            try leastCPU(prepare: { try repository.writeIndexV4(paths: paths) }) { _ = repository.revision() }
        }
        let small = try cost(growing(5_000))
        let large = try cost(growing(20_000))
        let ratio = Double(large) / Double(small)
        let revision = repository.revision()

        // Paths up to 2,000 bytes, each sharing all but its last byte with the one before: read to the end, linear.
        func sawtooth(_ count: Int) -> [HandMadeRepository.CompressedPath] {
            (0..<count).map { (number: Int) -> HandMadeRepository.CompressedPath in
                guard number % 2_000 == 0 else { return HandMadeRepository.CompressedPath(drop: 0, suffix: [UInt8(ascii: "a")]) }
                let start: [UInt8] = Array(String(format: "d%06d/a", number / 2_000).utf8)
                return HandMadeRepository.CompressedPath(drop: number == 0 ? 0 : 2_008, suffix: start)
            }
        }
        let shorter = try cost(sawtooth(8_000))
        let longer = try cost(sawtooth(32_000))
        let sawtoothRevision = repository.revision()
        let sawtoothRatio = Double(longer) / Double(shorter)
        return (small, large, ratio, revision, shorter, longer, sawtoothRatio, sawtoothRevision)
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

/// Every reader is near-linear in its input: the lookups made per item (an espanso reference's variable, a
/// `.yas-parents` name) are hashed. Eight times the input should cost about eight times as much; quadratic, 64.
struct LinearReaderTests {
    /// The least thread CPU time of loading `small`, then `large`, from memory at `path`: measured on a thread of its
    /// own, since seconds of loading on the cooperative pool starve every other test's server.
    static func loadCosts(_ small: [String: String], _ large: [String: String], at path: String) async -> (UInt64, UInt64) {
        await onOwnThread { () -> (UInt64, UInt64) in
            let load = { (files: [String: String]) in
                _ = LibraryLoader(fileSystem: InMemoryFileSystem(files: files)).load(paths: [path])
            }
            return ((try? leastCPU { load(small) }) ?? 1, (try? leastCPU { load(large) }) ?? 1)
        }
    }

    /// One espanso match of `count` references to undefined names (which use no expansion budget) in a file of
    /// `count` global variables: each reference scanned every global.
    static func espansoFile(_ count: Int) -> [String: String] {
        let globals = (0..<count).map { "  - name: g\($0)\n    type: echo\n    params:\n      echo: x\n" }.joined()
        let references = (0..<count).map { "{{u\($0)}}" }.joined()
        return ["/esp/match/base.yml": "global_vars:\n" + globals + "matches:\n  - trigger: \":a\"\n    replace: \"\(references)\"\n"]
    }

    @Test func espansoReferencesCostTimeLinearInTheirCount() async throws {
        let small = Self.espansoFile(1_000)
        let large = Self.espansoFile(8_000)
        let (smallCost, largeCost) = await Self.loadCosts(small, large, at: "/esp")
        let ratio = Double(largeCost) / Double(smallCost)
        #expect(ratio < 24, "1,000: \(smallCost / 1_000_000) ms, 8,000: \(largeCost / 1_000_000) ms, ratio \(ratio) (linear: about 8)")
    }

    /// `count` SnipMate snippets, then a `snippet!` for each: every override used to scan every earlier snippet.
    static func snipMateOverrides(_ count: Int) -> [String: String] {
        let snippets = (0..<count).map { "snippet t\($0)\n\tfirst \($0)\n" }.joined()
        let overrides = (0..<count).map { "snippet! t\($0)\n\tsecond \($0)\n" }.joined()
        return ["/lib/snippets/c.snippets": snippets + overrides]
    }

    /// `count` UltiSnips snippets at priority 10 with one trigger, then `count` of their own triggers, then as many
    /// `clearsnippets` at priority 0 (which spare the first `count`, each looked at again by every clear) and as
    /// many of the others' triggers.
    static func ultiSnipsClears(_ count: Int) -> [String: String] {
        let kept = "priority 10\n" + (0..<count).map { _ in "snippet same\nkept\nendsnippet\n" }.joined()
        let cleared = "priority 0\n" + (0..<count).map { "snippet u\($0)\ncleared\nendsnippet\n" }.joined()
        let clears = (0..<count).map { "clearsnippets same u\($0)\n" }.joined()
        return ["/lib/UltiSnips/python.snippets": kept + cleared + clears]
    }

    @Test func snipMateOverridesCostTimeLinearInTheirCount() async throws {
        let small = Self.snipMateOverrides(1_000)
        let large = Self.snipMateOverrides(8_000)
        let (smallCost, largeCost) = await Self.loadCosts(small, large, at: "/lib")
        let ratio = Double(largeCost) / Double(smallCost)
        #expect(ratio < 24, "1,000: \(smallCost / 1_000_000) ms, 8,000: \(largeCost / 1_000_000) ms, ratio \(ratio) (linear: about 8)")
    }

    @Test func ultiSnipsClearsCostTimeLinearInTheirCount() async throws {
        let small = Self.ultiSnipsClears(500)
        let large = Self.ultiSnipsClears(4_000)
        let (smallCost, largeCost) = await Self.loadCosts(small, large, at: "/lib")
        let ratio = Double(largeCost) / Double(smallCost)
        #expect(ratio < 24, "500: \(smallCost / 1_000_000) ms, 4,000: \(largeCost / 1_000_000) ms, ratio \(ratio) (linear: about 8)")
    }

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

    /// A `.code-snippets` file of `count` entries, each missing its comma and followed by a stray word and a stray
    /// closer of the wrong kind: every mistake is read past.
    static func brokenJSONFile(_ count: Int) -> [String: String] {
        let entries = (0..<count).map { #""e\#($0)": { "prefix": "p\#($0)", "body": ["x", "y" } oops ]"# }
        return ["/lib/broken.code-snippets": "{\n" + entries.joined(separator: "\n") + "\n}\n"]
    }

    @Test func aJSONFileBrokenAtEveryEntryKeepsThemAllAndCostsTimeLinearInItsLength() async throws {
        let small = Self.brokenJSONFile(1_000)
        let large = Self.brokenJSONFile(8_000)
        let library = LibraryLoader(fileSystem: InMemoryFileSystem(files: small)).load(paths: ["/lib"])
        #expect(library.snippets.count == 1_000)
        #expect(library.snippets.last?.body == "x\ny")
        #expect(library.diagnostics.filter { $0.code == .jsonSyntax }.count == JSONC.maximumErrors + 1)
        let (smallCost, largeCost) = await Self.loadCosts(small, large, at: "/lib")
        let ratio = Double(largeCost) / Double(smallCost)
        #expect(ratio < 24, "1,000: \(smallCost / 1_000_000) ms, 8,000: \(largeCost / 1_000_000) ms, ratio \(ratio) (linear: about 8)")
    }

    @Test func aYasParentsFileCostsTimeLinearInItsNames() async throws {
        func files(_ count: Int) -> [String: String] {
            [
                "/lib/snippets/python-mode/.yas-parents": (0..<count).map { "m\($0)-mode" }.joined(separator: " "),
                "/lib/snippets/python-mode/a": "# name: a\n# key: a\n# --\na",
            ]
        }
        // Sizes at which the smaller load takes milliseconds: at 1,000 names it took a third of one, and one
        // disturbance of a fraction of a millisecond on a loaded CI machine read as a ratio of 98.
        let small = files(10_000)
        let large = files(80_000)
        let (smallCost, largeCost) = await Self.loadCosts(small, large, at: "/lib")
        let ratio = Double(largeCost) / Double(smallCost)
        #expect(ratio < 24, "10,000: \(smallCost / 1_000_000) ms, 80,000: \(largeCost / 1_000_000) ms, ratio \(ratio) (linear: about 8)")
    }
}
