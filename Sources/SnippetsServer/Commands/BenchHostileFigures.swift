import Foundation
import SnippetsCore

/// How loading grows with input size: conflict detection always, and `--hostile` input at two sizes, each as a ratio
/// of the two times.
extension BenchCommand {
    /// Conflict detection on the library and on the library twice (a second layer copying every file with its
    /// triggers and bodies renamed, so the copy has as many conflicts of its own and none with the original): the
    /// ratio of the two times shows how it grows (2 means linear).
    static func conflictScaling(_ library: SnippetLibrary) -> String {
        var copies = library.files
        for index in copies.indices {
            copies[index].uri += "#copy"
            copies[index].layer = "copy"
            for snippet in copies[index].snippets.indices {
                copies[index].snippets[snippet].location.uri += "#copy"
                copies[index].snippets[snippet].layer = "copy"
                copies[index].snippets[snippet].triggers = copies[index].snippets[snippet].triggers.map { $0 + "\u{2032}" }
                copies[index].snippets[snippet].body += "\u{2032}"
            }
        }
        var doubled = SnippetLibrary(files: library.files + copies)
        doubled.layers = library.layers + [LibraryLayer(path: "/copy", name: "copy")]
        func measure(_ library: SnippetLibrary) -> (nanoseconds: UInt64, found: Int) {
            let start = processCPUNanoseconds()
            let found = LibraryConflicts.diagnostics(in: library).count
            return (processCPUNanoseconds() - start, found)
        }
        let single = measure(library)
        let double = measure(doubled)
        let ratio = Double(double.nanoseconds) / Double(max(single.nanoseconds, 1))
        return "conflicts:       \(library.snippets.count) snippets \(milliseconds(single.nanoseconds)) ms CPU (\(single.found) diagnostics); "
            + "\(doubled.snippets.count) snippets \(milliseconds(double.nanoseconds)) ms CPU (\(double.found)); ratio \(String(format: "%.2f", ratio)) for 2x the snippets"
    }

    /// Loading a library of one file at the bottom of a chain of folders, at two depths, in CPU time, on the real
    /// file system (a temporary folder, removed after): about 2 when the walk is linear in depth.
    static func deepTreeFigures(depth: Int = 300) -> String {
        let root = NSTemporaryDirectory() + "snippets-bench-deep-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        func cpu(_ levels: Int) -> UInt64 {
            let top = root + "/\(levels)"
            let bottom = top + String(repeating: "/d", count: levels)
            try? FileManager.default.createDirectory(atPath: bottom, withIntermediateDirectories: true)
            try? #"{"a": {"prefix": "a", "body": "b"}}"#.write(toFile: bottom + "/a.code-snippets", atomically: false, encoding: .utf8)
            let start = processCPUNanoseconds()
            _ = LibraryLoader(fileSystem: DiskFileSystem()).load(paths: [top])
            return processCPUNanoseconds() - start
        }
        let shallow = cpu(depth)
        let deep = cpu(depth * 2)
        return "depth \(depth) CPU \(milliseconds(shallow)) ms, depth \(depth * 2) CPU \(milliseconds(deep)) ms, "
            + "ratio \(String(format: "%.2f", Double(deep) / Double(max(shallow, 1)))) (linear: about 2)"
    }

    /// The CPU time of loading one VS Code snippet whose body is `body` (JSON-safe: no quote, backslash or newline).
    private static func loadCPU(body: String) -> UInt64 {
        let text = "{\"x\": {\"prefix\": \"x\", \"body\": \"\(body)\"}}"
        let loader = LibraryLoader(fileSystem: InMemoryFileSystem(files: ["/bench/hostile.code-snippets": text]))
        let start = processCPUNanoseconds()
        _ = loader.load(paths: ["/bench"])
        return processCPUNanoseconds() - start
    }

    /// Loading a file whose body is one unclosed `${1:` after another (and the same with a non-ASCII letter in
    /// each), at two sizes, in CPU time: the ratio is about 2 when loading is linear in bytes, 4 when quadratic.
    static func hostileBodyFigures(units: Int = 25_000) -> String {
        func cpu(_ repeats: Int) -> UInt64 {
            loadCPU(body: String(repeating: "${1:", count: repeats / 2) + String(repeating: "é${1:", count: repeats / 2))
        }
        let small = cpu(units)
        let large = cpu(units * 2)
        let ratio = Double(large) / Double(max(small, 1))
        return "\(units / 1000)k constructs CPU \(milliseconds(small)) ms, \(units * 2 / 1000)k CPU \(milliseconds(large)) ms, "
            + "ratio \(String(format: "%.2f", ratio)) (linear: about 2)"
    }

    /// Loading a body of transforms whose options run on into text (`${FOO/(.*)/x/ ${BAR: $x ` again and again, one
    /// `}` at the end: what the body fuzzer found), at two sizes, in CPU time: about 2 when linear, 4 when quadratic.
    static func transformOptionsFigures(repeats: Int = 2_000) -> String {
        func cpu(_ count: Int) -> UInt64 {
            loadCPU(body: String(repeating: "${1|a,b${FOO/(.*)/x/ ${BAR: $x ", count: count) + "me}")
        }
        let small = cpu(repeats)
        let large = cpu(repeats * 2)
        return "\(repeats) transforms CPU \(milliseconds(small)) ms, \(repeats * 2) CPU \(milliseconds(large)) ms, "
            + "ratio \(String(format: "%.2f", Double(large) / Double(max(small, 1)))) (linear: about 2)"
    }

    /// Reading a JSON-RPC message whose id is `0.000…01` at two lengths, in CPU time: about 2 when the reader is
    /// linear in bytes, 4 when quadratic (as it was when leading zeros were stripped one at a time).
    static func longNumberFigures(zeros: Int = 200_000) -> String {
        func cpu(_ count: Int) -> UInt64 {
            let message = Array(("{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":0." + String(repeating: "0", count: count) + "1}}").utf8)
            let start = processCPUNanoseconds()
            _ = try? JSONValue.parse(message)
            return processCPUNanoseconds() - start
        }
        let small = cpu(zeros)
        let large = cpu(zeros * 2)
        return "\(zeros / 1000)k zeros CPU \(milliseconds(small)) ms, \(zeros * 2 / 1000)k CPU \(milliseconds(large)) ms, "
            + "ratio \(String(format: "%.2f", Double(large) / Double(max(small, 1)))) (linear: about 2)"
    }

    /// Rendering, in one request, snippets of catastrophic transforms (`${1/^(a|a)*$/x/}` over 28 `a`s and a `!`,
    /// minutes each unbounded), at two counts of transforms per snippet and two counts of snippets, in CPU time and
    /// regex ticks: about 1 while the per-snippet and per-request budgets (`RegexBudget`) bound them, 2 when not.
    static func hostileTransformFigures() -> String {
        func cpu(snippets: Int, transforms: Int) -> (nanoseconds: UInt64, ticks: Int) {
            let body = "${1:" + String(repeating: "a", count: 28) + "!}"
                + String(repeating: " ${1/^(a|a)*$/x/}", count: transforms)
            let budget = RegexBudget(ticks: RegexBudget.perRequest)
            let start = processCPUNanoseconds()
            RegexBudget.$request.withValue(budget) {
                for _ in 0..<snippets { _ = SnippetBody.parse(body).body.plainText() }
            }
            return (processCPUNanoseconds() - start, budget.spentTicks)
        }
        func line(_ small: (nanoseconds: UInt64, ticks: Int), _ large: (nanoseconds: UInt64, ticks: Int)) -> String {
            "CPU \(milliseconds(small.nanoseconds)) ms (\(small.ticks) ticks), 2x CPU \(milliseconds(large.nanoseconds)) ms "
                + "(\(large.ticks) ticks), ratio \(String(format: "%.2f", Double(large.nanoseconds) / Double(max(small.nanoseconds, 1))))"
        }
        return "8 vs 16 transforms in a snippet: " + line(cpu(snippets: 1, transforms: 8), cpu(snippets: 1, transforms: 16))
            + "; 25 vs 50 such snippets in a request: " + line(cpu(snippets: 25, transforms: 8), cpu(snippets: 50, transforms: 8))
            + " (bounded: about 1)"
    }

    /// Loading an espanso file whose matches each use a 200 KB global four times, at 150 and 300 matches (about 7
    /// and 14 KB of matches), in CPU time and bytes of bodies: about 1 once the file's allowance
    /// (`EspansoReplacement.fileAllowance`) is spent, 2 when each match adds its 800 KB.
    static func espansoExpansionFigures(matches: Int = 150) -> String {
        func load(_ count: Int) -> (nanoseconds: UInt64, bytes: Int) {
            let text = "global_vars:\n  - name: big\n    type: echo\n    params:\n      echo: "
                + String(repeating: "x", count: 200_000) + "\nmatches:\n"
                + (0..<count).map { "  - trigger: \":m\($0)\"\n    replace: \"{{big}}{{big}}{{big}}{{big}}\"\n" }.joined()
            let loader = LibraryLoader(fileSystem: InMemoryFileSystem(files: ["/bench/match/base.yml": text]))
            let start = processCPUNanoseconds()
            let library = loader.load(paths: ["/bench"])
            return (processCPUNanoseconds() - start, library.snippets.reduce(0) { $0 + $1.body.utf8.count })
        }
        let small = load(matches)
        let large = load(matches * 2)
        return "\(matches) matches CPU \(milliseconds(small.nanoseconds)) ms (\(small.bytes / 1024) KiB of bodies), "
            + "\(matches * 2) CPU \(milliseconds(large.nanoseconds)) ms (\(large.bytes / 1024) KiB), "
            + "ratio \(String(format: "%.2f", Double(large.nanoseconds) / Double(max(small.nanoseconds, 1)))) CPU, "
            + "\(String(format: "%.2f", Double(large.bytes) / Double(max(small.bytes, 1)))) bytes (bounded: about 1)"
    }

    /// Loading an espanso package of 50 small files beside a 1 MB `_manifest.yml`, then of twice both, in CPU time:
    /// about 2 when the manifest is read and parsed once per load (`RelatedFiles`), 4 when once per file beside it.
    static func espansoManifestFigures(files count: Int = 50) -> String {
        func load(_ count: Int) -> UInt64 {
            let padding = String(repeating: "# padding\n", count: 2_000 * count)
            var files = ["/bench/match/packages/p/_manifest.yml": "name: p\n" + padding]
            for number in 0..<count {
                files["/bench/match/packages/p/f\(number).yml"] = "matches:\n  - trigger: \":f\(number)\"\n    replace: x\n"
            }
            let loader = LibraryLoader(fileSystem: InMemoryFileSystem(files: files))
            let start = processCPUNanoseconds()
            _ = loader.load(paths: ["/bench"])
            return processCPUNanoseconds() - start
        }
        let small = load(count)
        let large = load(count * 2)
        return "\(count) files CPU \(milliseconds(small)) ms, 2x files and manifest CPU \(milliseconds(large)) ms, "
            + "ratio \(String(format: "%.2f", Double(large) / Double(max(small, 1)))) (linear: about 2)"
    }

    /// Loading a SnipMate file of snippets each overridden by a `snippet!`, and an UltiSnips file of snippets each
    /// removed by a `clearsnippets` (beside as many a clear spares), at two sizes, in CPU time: about 2 when
    /// overrides are resolved through `OverrideIndex`, 4 when each scans the snippets before it.
    static func overrideFigures(count: Int = 4_000) -> String {
        func cpu(_ files: [String: String]) -> UInt64 {
            let loader = LibraryLoader(fileSystem: InMemoryFileSystem(files: files))
            let start = processCPUNanoseconds()
            _ = loader.load(paths: ["/bench"])
            return processCPUNanoseconds() - start
        }
        func snipMate(_ count: Int) -> [String: String] {
            let snippets = (0..<count).map { "snippet t\($0)\n\tfirst\n" }.joined()
            return ["/bench/snippets/c.snippets": snippets + (0..<count).map { "snippet! t\($0)\n\tsecond\n" }.joined()]
        }
        func ultiSnips(_ count: Int) -> [String: String] {
            let kept = "priority 10\n" + String(repeating: "snippet same\nkept\nendsnippet\n", count: count)
            let cleared = "priority 0\n" + (0..<count).map { "snippet u\($0)\ncleared\nendsnippet\n" }.joined()
            return ["/bench/UltiSnips/python.snippets": kept + cleared + (0..<count).map { "clearsnippets same u\($0)\n" }.joined()]
        }
        let (mateSmall, mateLarge) = (cpu(snipMate(count)), cpu(snipMate(count * 2)))
        let (ultiSmall, ultiLarge) = (cpu(ultiSnips(count)), cpu(ultiSnips(count * 2)))
        return "snippet! \(count) CPU \(milliseconds(mateSmall)) ms, \(count * 2) CPU \(milliseconds(mateLarge)) ms, "
            + "ratio \(String(format: "%.2f", Double(mateLarge) / Double(max(mateSmall, 1)))); clearsnippets \(count) CPU \(milliseconds(ultiSmall)) ms, "
            + "\(count * 2) CPU \(milliseconds(ultiLarge)) ms, ratio \(String(format: "%.2f", Double(ultiLarge) / Double(max(ultiSmall, 1)))) (linear: about 2)"
    }

    /// One idle poll (`DiskStamps`) of a library folder of 20 snippet files, then of the same folder beside a `.git`
    /// of `objects` loose objects and a `.venv`, in CPU time on the real file system: about 1 when the poll walks
    /// what a load reads, far more when it enumerates hidden trees.
    static func idlePollFigures(objects: Int = 5_000) -> String {
        let root = NSTemporaryDirectory() + "snippets-bench-poll-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = FileManager.default
        try? files.createDirectory(atPath: root, withIntermediateDirectories: true)
        for number in 0..<20 {
            try? #"{"a": {"prefix": "a", "body": "b"}}"#.write(toFile: "\(root)/f\(number).code-snippets", atomically: false, encoding: .utf8)
        }
        func cpu() -> (nanoseconds: UInt64, stamped: Int) {
            let start = processCPUNanoseconds()
            let stamped = DiskStamps.stamps(under: [root]).count
            return (processCPUNanoseconds() - start, stamped)
        }
        let bare = cpu()
        for number in 0..<objects {
            let folder = "\(root)/.git/objects/\(String(format: "%02x", number % 256))"
            try? files.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try? "x".write(toFile: "\(folder)/o\(number)", atomically: false, encoding: .utf8)
            if number % 5 == 0 {
                try? files.createDirectory(atPath: "\(root)/.venv/lib", withIntermediateDirectories: true)
                try? "x".write(toFile: "\(root)/.venv/lib/m\(number).py", atomically: false, encoding: .utf8)
            }
        }
        let beside = cpu()
        return "library CPU \(milliseconds(bare.nanoseconds)) ms (\(bare.stamped) files stamped), beside a .git of \(objects) objects "
            + "CPU \(milliseconds(beside.nanoseconds)) ms (\(beside.stamped)), ratio \(String(format: "%.2f", Double(beside.nanoseconds) / Double(max(bare.nanoseconds, 1)))) (about 1)"
    }
}

/// Hostile input that once cost time quadratic in its size, moved here from timed tests: each at two sizes, as a
/// ratio of the two CPU times (about 2 when linear, 4 when quadratic).
extension BenchCommand {
    /// Loading files made by `make` at `count` and twice `count` from memory under `path`, in CPU time.
    static func loadScaling(count: Int, path: String = "/bench", _ make: (Int) -> [String: String]) -> String {
        func cpu(_ files: [String: String]) -> UInt64 {
            let loader = LibraryLoader(fileSystem: InMemoryFileSystem(files: files))
            let start = processCPUNanoseconds()
            _ = loader.load(paths: [path])
            return processCPUNanoseconds() - start
        }
        let small = cpu(make(count))
        let large = cpu(make(count * 2))
        return "\(count) CPU \(milliseconds(small)) ms, \(count * 2) CPU \(milliseconds(large)) ms, "
            + "ratio \(String(format: "%.2f", Double(large) / Double(max(small, 1))))"
    }

    /// An espanso match of `count` references to undefined names in a file of `count` global variables (each
    /// reference used to scan every global), a `.code-snippets` file of `count` entries each missing its comma and
    /// followed by stray text, and a `.yas-parents` of `count` names (each used to be looked up in a list).
    static func readerFigures(count: Int = 4_000) -> String {
        let espanso = loadScaling(count: count) { count in
            let globals = (0..<count).map { "  - name: g\($0)\n    type: echo\n    params:\n      echo: x\n" }.joined()
            let references = (0..<count).map { "{{u\($0)}}" }.joined()
            return ["/bench/match/base.yml": "global_vars:\n" + globals + "matches:\n  - trigger: \":a\"\n    replace: \"\(references)\"\n"]
        }
        let brokenJSON = loadScaling(count: count) { count in
            let entries = (0..<count).map { #""e\#($0)": { "prefix": "p\#($0)", "body": ["x", "y" } oops ]"# }
            return ["/bench/broken.code-snippets": "{\n" + entries.joined(separator: "\n") + "\n}\n"]
        }
        // Ten times as many names: at a few thousand the load takes a fraction of a millisecond.
        let yasParents = loadScaling(count: count * 10) { count in
            [
                "/bench/snippets/python-mode/.yas-parents": (0..<count).map { "m\($0)-mode" }.joined(separator: " "),
                "/bench/snippets/python-mode/a": "# name: a\n# key: a\n# --\na",
            ]
        }
        return "espanso references \(espanso); JSON broken at every entry \(brokenJSON); .yas-parents names \(yasParents) (linear: about 2)"
    }

    /// Hostile YAML shapes, each at a size and twice it, parsed (and the espanso braces loaded as a match file),
    /// in CPU time: about 2 when no step looks back further than a line, 4 when one does.
    static func yamlFigures(units: Int = 20_000) -> String {
        let shapes: [(name: String, make: (Int) -> String)] = [
            ("long plain line", { n in "a: " + String(repeating: "x :y #", count: n) + "\n" }),
            ("many keys", { n in (0..<n).map { "key\($0): value \($0)\n" }.joined() }),
            ("quoted over lines", { n in "a: \"" + String(repeating: "word \\\n  ", count: n) + "\"\n" }),
            ("plain over lines", { n in "a: start\n" + String(repeating: "  more text\n", count: n) }),
            ("block scalar", { n in "a: |\n" + String(repeating: "  line of text\n", count: n) }),
            ("flow list", { n in "a: [" + String(repeating: "x, ", count: n) + "y]\n" }),
            ("unclosed quote", { n in "a: '" + String(repeating: "x ", count: n) + "\n" }),
            ("failing keys on one line", { n in String(repeating: "x", count: n * 4) + "\n" }),
            ("espanso braces", { n in "matches:\n  - trigger: a\n    replace: \"" + String(repeating: "{{{{ }} [[", count: n) + "\"\n" }),
        ]
        let figures = shapes.map { shape -> String in
            func cpu(_ count: Int) -> UInt64 {
                let text = shape.make(count)
                let start = processCPUNanoseconds()
                _ = YAML.parse(Array(text.utf8))
                if shape.name == "espanso braces" {
                    _ = LibraryLoader(fileSystem: InMemoryFileSystem(files: ["/bench/match/a.yml": text])).load(paths: ["/bench"])
                }
                return processCPUNanoseconds() - start
            }
            let small = cpu(units)
            let large = cpu(units * 2)
            return "\(shape.name) \(milliseconds(small)) / \(milliseconds(large)) ms, ratio \(String(format: "%.2f", Double(large) / Double(max(small, 1))))"
        }
        return "\(units / 1000)k vs \(units * 2 / 1000)k units CPU: " + figures.joined(separator: "; ") + " (linear: about 2)"
    }

    /// Scanning a version-4 git index (`GitRevision.scanIndex`, from memory) of paths up to 2,000 bytes each sharing
    /// all but its last byte with the one before, at two sizes, in CPU time: about 2 when one path is edited in
    /// place, 4 when every path is kept or copied whole. And one whose every path is the previous one plus a byte,
    /// at two sizes past git's longest path (4,096 bytes): about 1, since the scan stops there.
    static func gitIndexFigures(entries: Int = 8_000) -> String {
        /// A version-4 index whose entries drop `drop(n)` bytes of the previous path and add `suffix(n)`.
        func index(_ count: Int, drop: (Int) -> Int, suffix: (Int) -> [UInt8]) -> [UInt8] {
            var bytes = Array("DIRC".utf8) + bigEndian(4) + bigEndian(UInt32(count))
            for number in 0..<count {
                bytes += [UInt8](repeating: 0, count: 60) + [0x0F, 0xFF]
                bytes += varint(drop(number)) + suffix(number) + [0]
            }
            return bytes + [UInt8](repeating: 0, count: 20)
        }
        func cpu(_ bytes: [UInt8]) -> UInt64 {
            let start = processCPUNanoseconds()
            _ = GitRevision.scanIndex(bytes, layerPrefix: "", layerRoot: "/bench", workTree: "/bench", loaded: [])
            return processCPUNanoseconds() - start
        }
        func growing(_ count: Int) -> [UInt8] { index(count, drop: { _ in 0 }, suffix: { _ in [UInt8(ascii: "a")] }) }
        func sawtooth(_ count: Int) -> [UInt8] {
            index(
                count, drop: { $0 % 2_000 == 0 && $0 > 0 ? 2_008 : 0 },
                suffix: { $0 % 2_000 == 0 ? Array(String(format: "d%06d/a", $0 / 2_000).utf8) : [UInt8(ascii: "a")] })
        }
        func line(_ name: String, _ count: Int, _ make: (Int) -> [UInt8]) -> String {
            let small = cpu(make(count))
            let large = cpu(make(count * 2))
            return "\(name) \(count) CPU \(milliseconds(small)) ms, \(count * 2) CPU \(milliseconds(large)) ms, "
                + "ratio \(String(format: "%.2f", Double(large) / Double(max(small, 1))))"
        }
        return line("2,000-byte paths", entries, sawtooth) + " (linear: about 2); "
            + line("growing paths", 5_000, growing) + " (stops at 4,096 bytes: about 1)"
    }

    /// A 32-bit number as a git index writes it.
    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// Git's varint for a version-4 path's "bytes to drop" (`HostileFilesTests` writes its indexes with it too).
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
}
