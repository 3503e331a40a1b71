import Foundation
import SnippetsCore

/// `snippets-lsp bench`: loads and indexes libraries, runs searches, and prints timings and peak memory.
public enum BenchCommand: SnippetsCommand {
    public static let name = "bench"
    public static let summary = "Time loading, indexing and searching a library"
    public static let help = """
        Usage: snippets-lsp bench [--library PATH]... [--searches N] [--hostile]

        Loads and indexes the libraries, then runs N searches (default 1000) drawn deterministically from the
        library's own triggers (prefixes of them, as typed) and title words, each in the language of the snippet
        it came from, then the same words as `ask`-style term searches. Prints load and index time (wall clock and
        process CPU time, which a busy machine inflates less), snippet count, peak resident memory (VmHWM) and
        search latency percentiles. Build with `swift build -c release` first: debug builds are many times slower.

        Options:
          --library PATH   A snippet file or folder (repeatable). Default: the corpora under
                           ../shared/corpora (friendly-snippets, vim-snippets, personal) when that folder exists.
          --searches N     How many searches to time (default 1000).
          --hostile        Also time loading hostile input at two sizes and print the ratio (about 2 when linear,
                           4 when quadratic): a body of 25,000 then 50,000 unclosed placeholders, and one snippet
                           file 300 then 600 folders deep.
        """

    /// The corpora used when no `--library` is given, relative to the current directory.
    static let defaultCorpora = ["friendly-snippets", "vim-snippets", "personal"].map { "../shared/corpora/" + $0 }

    public static func run(_ context: CommandContext) async -> Int32 {
        let arguments: ParsedArguments
        let searchCount: Int
        do {
            arguments = try ParsedArguments(context.arguments, options: ["--library", "--searches"], flags: ["--hostile"])
            searchCount = try arguments.positiveInteger("--searches") ?? 1000
            if !arguments.positionals.isEmpty { throw ArgumentError.tooManyArguments(arguments.positionals) }
        } catch {
            context.printError("snippets-lsp bench: \(error)")
            return 2
        }
        var paths = arguments.values("--library")
        if paths.isEmpty {
            guard FileManager.default.fileExists(atPath: "../shared/corpora") else {
                context.printError("snippets-lsp bench: no --library given and ../shared/corpora does not exist here")
                return 2
            }
            paths = defaultCorpora
        }

        let loadStart = DispatchTime.now().uptimeNanoseconds
        let loadCPUStart = processCPUNanoseconds()
        let library = LibraryPaths.resolve(flags: paths, environment: context.environment).load()
        let indexStart = DispatchTime.now().uptimeNanoseconds
        let indexCPUStart = processCPUNanoseconds()
        let index = TokenIndex(library: library)
        let indexEnd = DispatchTime.now().uptimeNanoseconds
        let indexCPUEnd = processCPUNanoseconds()
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

        func timing(_ wall: UInt64, cpu: UInt64) -> String { "\(milliseconds(wall)) ms (CPU \(milliseconds(cpu)) ms)" }
        let files = library.files.count
        context.print("libraries:       \(paths.joined(separator: ", "))")
        context.print("snippets:        \(library.snippets.count) in \(files) files, \(index.tokenCount) distinct tokens")
        context.print("load:            \(timing(indexStart - loadStart, cpu: indexCPUStart - loadCPUStart))")
        context.print("index:           \(timing(indexEnd - indexStart, cpu: indexCPUEnd - indexCPUStart))")
        context.print("load and index:  \(timing(indexEnd - loadStart, cpu: indexCPUEnd - loadCPUStart))")
        context.print("peak memory:     \(peakMemory())")
        context.print("search (typing): \(summary(typing)); \(matched) of \(queries.count) had hits")
        context.print("search (terms):  \(summary(terms))")
        if arguments.has("--hostile") {
            context.print("hostile bodies:  \(hostileBodyFigures())")
            context.print("deep folders:    \(deepTreeFigures())")
        }
        return 0
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
