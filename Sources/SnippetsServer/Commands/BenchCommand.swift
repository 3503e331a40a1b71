import Foundation
import SnippetsCore

/// `snippets-lsp bench`: loads and indexes libraries, runs searches, and prints timings and peak memory.
public enum BenchCommand: SnippetsCommand {
    public static let name = "bench"
    public static let summary = "Time loading, indexing and searching a library"
    public static let options = CommandOptions([
        LibraryOptions.library.withHelp(
            "A snippet file or folder (repeatable). Default: the corpora under ../shared/corpora (friendly-snippets, "
                + "vim-snippets, personal) when that folder exists."),
        CommandOption(
            "--searches", value: .wholeNumber(placeholder: "N", minimum: 1, maximum: nil),
            help: "How many searches to time (default 1000)."),
        CommandOption(
            "--asks", value: .wholeNumber(placeholder: "N", minimum: 1, maximum: nil),
            help: "How many asks to time at each size (default 300)."),
        CommandOption(
            "--scale", value: .wholeNumber(placeholder: "N", minimum: 1, maximum: nil),
            help: "How many copies make the larger library (default 8; 1 skips it)."),
        CommandOption(
            "--startups", value: .wholeNumber(placeholder: "N", minimum: 1, maximum: nil),
            help: "How many times to time start-up at each size; the median is printed (default 3)."),
        CommandOption(
            "--hostile",
            help: "Also time loading hostile input at two sizes and print the ratio (about 2 when linear, 4 when "
                + "quadratic): a body of 25,000 then 50,000 unclosed placeholders, and one snippet file 300 then 600 "
                + "folders deep, and a JSON message holding the number 0.000…01 with 200,000 then 400,000 zeros."),
    ])
    public static let help = """
        \(CommandOptions.usage("bench", [options]))

        Loads and indexes the libraries, then runs N searches (default 1000) drawn deterministically from the
        library's own triggers (prefixes of them, as typed) and title words, each in the language of the snippet
        it came from, then the same words as `ask`-style term searches, then asks without a model (questions made
        from the library's titles). Prints load and index time (wall clock and process CPU time, which a busy
        machine inflates less), snippet count, peak resident memory (VmHWM) and latency percentiles.

        Start-up is timed as the server goes through it: reading and parsing the files, indexing them, and a first
        search (the library is in service from there), then annotating the library with layer revisions and
        conflicts, which the server does while the library already serves.

        Then it copies the libraries --scale times (default 8) into a temporary folder, each copy under its own
        root, and prints start-up at that size and ask latency again, with the ratio
        of the two ask p99s: an ask that does work proportional to the library shows a ratio near the scale.
        Build with `swift build -c release` first: debug builds are many times slower.

        Options:
        \(options.helpText())
        """

    /// The corpora used when no `--library` is given, relative to the current directory.
    static let defaultCorpora = ["friendly-snippets", "vim-snippets", "personal"].map { "../shared/corpora/" + $0 }

    public static func run(_ context: CommandContext) async -> Int32 {
        let arguments: ParsedArguments
        let searchCount: Int
        let askCount: Int
        let scale: Int
        let startUps: Int
        do {
            arguments = try options.parse(context.arguments)
            searchCount = try arguments.wholeNumber("--searches") ?? 1000
            askCount = try arguments.wholeNumber("--asks") ?? 300
            scale = try arguments.wholeNumber("--scale") ?? 8
            startUps = try arguments.wholeNumber("--startups") ?? 3
            if !arguments.positionals.isEmpty { throw ArgumentError.tooManyArguments(arguments.positionals) }
        } catch {
            context.printError("snippets-lsp bench: \(error)")
            return 2
        }
        var paths = arguments.values(LibraryOptions.library.name)
        if paths.isEmpty {
            guard FileManager.default.fileExists(atPath: "../shared/corpora") else {
                context.printError("snippets-lsp bench: no --library given and ../shared/corpora does not exist here")
                return 2
            }
            paths = defaultCorpora
        }

        let (startUp, startUpLines) = StartUp.repeated(startUps, LibraryPaths.resolve(flags: paths, environment: context.environment))
        let library = startUp.library
        let index = startUp.index
        guard !library.snippets.isEmpty else {
            context.printError("snippets-lsp bench: no snippets found under \(paths.joined(separator: ", "))")
            return 1
        }

        let queries = BenchQueries.make(from: library, count: searchCount)
        var typing: [UInt64] = []
        var terms: [UInt64] = []
        var matched = 0
        for query in queries {
            let start = DispatchTime.now().uptimeNanoseconds
            let results = index.search(query.text, language: query.language)
            typing.append(DispatchTime.now().uptimeNanoseconds - start)
            matched += results.hits.isEmpty ? 0 : 1
        }
        for query in queries {
            let words = Tokenizer.tokens(in: query.text)
            let start = DispatchTime.now().uptimeNanoseconds
            _ = index.search(terms: words, language: query.language)
            terms.append(DispatchTime.now().uptimeNanoseconds - start)
        }

        let files = library.files.count
        context.print("libraries:       \(paths.joined(separator: ", "))")
        context.print("snippets:        \(library.snippets.count) in \(files) files, \(index.tokenCount) distinct tokens")
        for line in startUpLines { context.print(line) }
        context.print("peak memory:     \(peakMemory())")
        context.print("search (typing): \(summary(typing)); \(matched) of \(queries.count) had hits")
        context.print("search (terms):  \(summary(terms))")
        context.print(conflictScaling(library))
        if arguments.has("--hostile") {
            context.print("hostile bodies:  \(hostileBodyFigures())")
            context.print("deep folders:    \(deepTreeFigures())")
            context.print("long numbers:    \(longNumberFigures())")
        }

        let questions = BenchQueries.questions(from: library, count: askCount)
        let (facts, asks, asksCPU) = await askTimings(library: library, index: index, questions: questions)
        context.print("ask facts:       \(milliseconds(facts)) ms (once per library)")
        context.print("ask (no model):  \(summary(asks))")
        context.print("ask CPU:         \(summary(asksCPU))")
        guard scale > 1 else { return 0 }

        // The larger library: every path copied `scale` times, each copy under its own root (so every snippet has
        // its own identifier), then loaded from disk as the server loads it.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("snippets-lsp-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        var copies: [String] = []
        do {
            for copy in 1...scale {
                let root = folder.appendingPathComponent("copy\(copy)")
                try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
                for (number, path) in paths.enumerated() {
                    let source = URL(fileURLWithPath: LibraryPaths.resolve(flags: [path], environment: context.environment).paths[0])
                    let target = root.appendingPathComponent("\(number)-\(source.lastPathComponent)")
                    try FileManager.default.copyItem(at: source, to: target)
                    copies.append(target.path)
                }
            }
        } catch {
            context.printError("snippets-lsp bench: could not copy the libraries into \(folder.path): \(error)")
            return 1
        }
        let (largeStartUp, largeStartUpLines) = StartUp.repeated(startUps, LibraryPaths.resolve(flags: copies, environment: context.environment))
        let large = largeStartUp.library
        let largeIndex = largeStartUp.index
        context.print("")
        context.print("\(scale)x library:     \(large.snippets.count) snippets in \(large.files.count) files (\(paths.count) paths copied \(scale) times)")
        for line in largeStartUpLines { context.print(line) }
        let (largeFacts, largeAsks, largeAsksCPU) = await askTimings(library: large, index: largeIndex, questions: questions)
        context.print("ask facts:       \(milliseconds(largeFacts)) ms (once per library)")
        context.print("ask (no model):  \(summary(largeAsks))")
        context.print("ask CPU:         \(summary(largeAsksCPU))")
        func ratio(_ p: Double) -> Double {
            Double(percentileNanoseconds(largeAsksCPU, p)) / Double(max(percentileNanoseconds(asksCPU, p), 1))
        }
        context.print(String(format: "ask CPU ratio:   p50 %.2f, p99 %.2f at %d times the snippets", ratio(0.5), ratio(0.99), scale))
        context.print("peak memory:     \(peakMemory())")
        return 0
    }

    /// Start-up as the server goes through it (`LanguageServer.scheduleReload`): read and parse the snippet files,
    /// index them, and answer a first search, which is when the library is in service; then annotate the library
    /// (layer revisions, conflicts) and swap it in under the same index.
    struct StartUp {
        var library: SnippetLibrary
        var index: TokenIndex
        var figures: Figures

        /// Wall-clock and CPU nanoseconds from the start to the end of each step.
        struct Figures {
            var read: (wall: UInt64, cpu: UInt64)
            var indexed: (wall: UInt64, cpu: UInt64)
            var firstSearch: (wall: UInt64, cpu: UInt64)
            var annotated: (wall: UInt64, cpu: UInt64)

            var lines: [String] {
                func timing(_ step: (wall: UInt64, cpu: UInt64)) -> String { "\(milliseconds(step.wall)) ms (CPU \(milliseconds(step.cpu)) ms)" }
                func difference(_ to: (wall: UInt64, cpu: UInt64), _ from: (wall: UInt64, cpu: UInt64)) -> (wall: UInt64, cpu: UInt64) {
                    (to.wall - from.wall, to.cpu - from.cpu)
                }
                return [
                    "start-up:        \(timing(firstSearch)) to a first search: read and parse \(timing(read)), "
                        + "index \(timing(difference(indexed, read)))",
                    "then annotation: \(timing(difference(annotated, firstSearch))) (layer revisions and conflicts, while the library serves)",
                ]
            }
        }

        static func measure(_ paths: LibraryPaths) -> StartUp {
            let wallStart = DispatchTime.now().uptimeNanoseconds
            let cpuStart = processCPUNanoseconds()
            func now() -> (wall: UInt64, cpu: UInt64) {
                (DispatchTime.now().uptimeNanoseconds - wallStart, processCPUNanoseconds() - cpuStart)
            }
            let snippets = LibraryLoader(fileSystem: DiskFileSystem()).load(layers: paths.layers)
            let read = now()
            let firstIndex = TokenIndex(library: snippets)
            let indexed = now()
            let query = snippets.snippets.first?.triggers.first ?? snippets.snippets.first?.title ?? ""
            _ = firstIndex.search(query)
            let firstSearch = now()
            let library = LayerLoading.annotating(snippets)
            let index = firstIndex.serving(library) ?? TokenIndex(library: library)
            let annotated = now()
            return StartUp(
                library: library, index: index,
                figures: Figures(read: read, indexed: indexed, firstSearch: firstSearch, annotated: annotated))
        }

        /// Start-up measured `count` times (each library let go before the next is read), and the lines to print:
        /// the run with the median time to a first search, and the range over all runs. The last run is returned.
        static func repeated(_ count: Int, _ paths: LibraryPaths) -> (StartUp, [String]) {
            var runs: [Figures] = []
            var last: StartUp?
            for _ in 0..<count {
                last = nil
                last = StartUp.measure(paths)
                runs.append(last!.figures)
            }
            let sorted = runs.sorted { $0.firstSearch.wall < $1.firstSearch.wall }
            var lines = sorted[(sorted.count - 1) / 2].lines
            if count > 1 {
                lines[0] += "; median of \(count), range \(milliseconds(sorted.first!.firstSearch.wall))–\(milliseconds(sorted.last!.firstSearch.wall)) ms"
            }
            return (last!, lines)
        }
    }

    /// The time to compute the ask facts of `library`, and the time of each ask of `questions` without a model.
    private static func askTimings(
        library: SnippetLibrary, index: TokenIndex, questions: [String]
    ) async -> (facts: UInt64, wall: [UInt64], cpu: [UInt64]) {
        let facts = AskLibraryFacts(library: library)
        let factsStart = DispatchTime.now().uptimeNanoseconds
        facts.prepare(index: index)
        let factsTime = DispatchTime.now().uptimeNanoseconds - factsStart
        // As the server asks: cited snippets' files are read for their quotes.
        let pipeline = AskPipeline(
            library: library, index: index, facts: facts, sources: FileSystemSnippetSources(fileSystem: DiskFileSystem()))
        var wall: [UInt64] = []
        var cpu: [UInt64] = []
        for question in questions {
            let start = DispatchTime.now().uptimeNanoseconds
            let startCPU = processCPUNanoseconds()
            _ = try? await pipeline.answer(AskRequest(question: question))
            wall.append(DispatchTime.now().uptimeNanoseconds - start)
            cpu.append(processCPUNanoseconds() - startCPU)
        }
        return (factsTime, wall, cpu)
    }

    private static func percentileNanoseconds(_ samples: [UInt64], _ p: Double) -> UInt64 {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[max(0, min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
    }

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

    /// Loading a file whose body is one unclosed `${1:` after another (and the same with a non-ASCII letter in
    /// each), at two sizes, in CPU time: the ratio is about 2 when loading is linear in bytes, 4 when quadratic.
    static func hostileBodyFigures(units: Int = 25_000) -> String {
        func cpu(_ repeats: Int) -> UInt64 {
            let body = String(repeating: "${1:", count: repeats / 2) + String(repeating: "é${1:", count: repeats / 2)
            let text = "{\"x\": {\"prefix\": \"x\", \"body\": \"\(body)\"}}"
            let loader = LibraryLoader(fileSystem: InMemoryFileSystem(files: ["/bench/hostile.code-snippets": text]))
            let start = processCPUNanoseconds()
            _ = loader.load(paths: ["/bench"])
            return processCPUNanoseconds() - start
        }
        let small = cpu(units)
        let large = cpu(units * 2)
        let ratio = Double(large) / Double(max(small, 1))
        return "\(units / 1000)k constructs CPU \(milliseconds(small)) ms, \(units * 2 / 1000)k CPU \(milliseconds(large)) ms, "
            + "ratio \(String(format: "%.2f", ratio)) (linear: about 2)"
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

    /// CPU time used by the whole process so far: unlike wall time, it does not grow when other work shares the
    /// machine.
    private static func processCPUNanoseconds() -> UInt64 {
        var time = timespec()
        guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return 0 }
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    private static func milliseconds(_ nanoseconds: UInt64) -> String {
        String(format: "%.1f", Double(nanoseconds) / 1_000_000)
    }

    private static func summary(_ samples: [UInt64]) -> String {
        let sorted = samples.sorted()
        func percentile(_ p: Double) -> String {
            let rank = min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)
            return String(format: "%.3f", Double(sorted[max(rank, 0)]) / 1_000_000)
        }
        return "p50 \(percentile(0.5)) ms, p99 \(percentile(0.99)) ms, max \(percentile(1)) ms over \(sorted.count)"
    }

    /// VmHWM from /proc/self/status (Linux); elsewhere says it is unavailable.
    private static func peakMemory() -> String {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return "unavailable (no /proc/self/status)" }
        return String(format: "%.1f MB (VmHWM)", kilobytes / 1024)
    }
}

/// The benchmark's queries: drawn from the library with a fixed-seed generator so every run searches the same.
enum BenchQueries {
    struct Query {
        var text: String
        var language: String?
    }

    /// Questions a person might ask, made from random titles of the library (some words left out, some added),
    /// with a fixed seed.
    static func questions(from library: SnippetLibrary, count: Int) -> [String] {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(bound, 1)))
        }
        let openings = ["how do I", "where is my", "what do I send for", "is there a snippet for", "show me the"]
        let snippets = library.snippets
        guard !snippets.isEmpty else { return [] }
        return (0..<count).map { _ in
            var words = snippets[next(snippets.count)].title.lowercased().split(separator: " ").map(String.init)
            if words.count > 2 { words.remove(at: next(words.count)) }
            return openings[next(openings.count)] + " " + words.joined(separator: " ") + "?"
        }
    }

    static func make(from library: SnippetLibrary, count: Int) -> [Query] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(bound, 1)))
        }
        let snippets = library.snippets
        var queries: [Query] = []
        queries.reserveCapacity(count)
        while queries.count < count {
            let snippet = snippets[next(snippets.count)]
            let language = snippet.scopes.first
            if queries.count % 2 == 0, let trigger = snippet.triggers.first, !trigger.isEmpty {
                let length = 1 + next(trigger.count)
                queries.append(Query(text: String(trigger.prefix(length)), language: language))
            } else {
                let words = Tokenizer.tokens(in: snippet.title)
                guard !words.isEmpty else { continue }
                queries.append(Query(text: words[next(words.count)], language: language))
            }
        }
        return queries
    }
}
