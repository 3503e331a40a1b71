import Foundation

/// The files snippet files name beside themselves (espanso's `imports` and a package's `_manifest.yml`), read and
/// parsed at most once per load, however many files name them: a 5.5 MB manifest beside 200 files was read and
/// parsed 200 times (its size times theirs). One is made per load (`LibraryLoader.load`) and shared by the readers
/// running in parallel; a reload of one file gets a fresh one.
final class RelatedFiles: @unchecked Sendable {  // `entries` only under `lock`; each entry's value under its own.
    /// One path's read and parse, each done once, the first time a reader asks.
    private final class Entry: @unchecked Sendable {  // Both values are set and read only under `lock`.
        let lock = NSLock()
        var file: RelatedFile?
        var yaml: Result<YAMLNode?, YAMLSyntaxError>?
        var table: LineTable?
    }

    private let readFile: @Sendable (String) -> RelatedFile
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var reads = 0
    private var parses = 0

    /// Files read through `read`, the loader's file system and size limit.
    init(read: @escaping @Sendable (String) -> RelatedFile) {
        self.readFile = read
    }

    private func entry(_ path: String) -> Entry {
        lock.lock()
        defer { lock.unlock() }
        if let entry = entries[path] { return entry }
        let entry = Entry()
        entries[path] = entry
        return entry
    }

    private func count(read: Int = 0, parse: Int = 0) {
        lock.lock()
        defer { lock.unlock() }
        reads += read
        parses += parse
    }

    /// The file at `path` (read the first time only).
    func file(_ path: String) -> RelatedFile {
        let entry = entry(path)
        entry.lock.lock()
        defer { entry.lock.unlock() }
        if let file = entry.file { return file }
        let file = readFile(path)
        count(read: 1)
        entry.file = file
        return file
    }

    /// The file at `path` and, when it is text, its YAML and line table (each read and built the first time only).
    func yaml(_ path: String) -> (file: RelatedFile, yaml: Result<YAMLNode?, YAMLSyntaxError>?, table: LineTable?) {
        let file = file(path)
        guard case .text(let text, _) = file else { return (file, nil, nil) }
        let entry = entry(path)
        entry.lock.lock()
        defer { entry.lock.unlock() }
        if let yaml = entry.yaml, let table = entry.table { return (file, yaml, table) }
        let yaml = YAML.parse(Array(text.utf8))
        let table = LineTable(text)
        count(parse: 1)
        entry.yaml = yaml
        entry.table = table
        return (file, yaml, table)
    }

    /// How many reads and parses were done: work counts for the tests.
    var counts: (reads: Int, parses: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (reads, parses)
    }
}
