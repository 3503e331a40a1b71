import Foundation
import SnippetsCore

/// `snippets-lsp bench`: loads and indexes libraries, runs searches, and prints timings and peak memory.
public enum BenchCommand: SnippetsCommand {
    public static let name = "bench"
    public static let summary = "Time loading, indexing and searching a library"
    public static let isDeveloperTool = true
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
                + "quadratic): a body of 25,000 then 50,000 unclosed placeholders, one snippet file 300 then 600 "
                + "folders deep, a JSON message holding the number 0.000…01 with 200,000 then 400,000 zeros, and "
                + "overrides, espanso references, broken JSON, .yas-parents names, YAML shapes and a git index."),
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
            context.print("transform options: \(transformOptionsFigures())")
            context.print("deep folders:    \(deepTreeFigures())")
            context.print("long numbers:    \(longNumberFigures())")
            context.print("regex transforms: \(hostileTransformFigures())")
            context.print("espanso globals: \(espansoExpansionFigures())")
            context.print("espanso manifest: \(espansoManifestFigures())")
            context.print("overrides:       \(overrideFigures())")
            context.print("readers:         \(readerFigures())")
            context.print("yaml shapes:     \(yamlFigures())")
            context.print("git index:       \(gitIndexFigures())")
            context.print("idle poll:       \(idlePollFigures())")
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

    /// CPU time used by the whole process so far: unlike wall time, it does not grow when other work shares the
    /// machine.
    static func processCPUNanoseconds() -> UInt64 {
        var time = timespec()
        guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return 0 }
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    static func milliseconds(_ nanoseconds: UInt64) -> String {
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
