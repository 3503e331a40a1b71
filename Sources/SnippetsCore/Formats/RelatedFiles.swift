import Foundation

/// The files snippet files name beside themselves (espanso's `imports` and a package's `_manifest.yml`), read and
/// parsed at most once per load, however many files name them: a 5.5 MB manifest beside 200 files was read and
/// parsed 200 times (its size times theirs). One is made per load (`LibraryLoader.load`) and shared by the readers
/// running in parallel; a reload of one file gets a fresh one.
///
/// Entries are keyed by the path with links resolved, so two names of one file are one entry. A file that is a
/// snippet file of its own as well as named by others (an espanso match file another imports) is read and parsed
/// once in all: the loader reads it through `ownBytes(_:read:)` and its reader parses it through
/// `ownYAML(_:text:bytes:)`, and an import finds what they kept (or they find what the import read).
final class RelatedFiles: @unchecked Sendable {  // `entries` only under `lock`; each entry's value under its own.
    /// One path's read and parse, each done once, the first time a reader asks.
    private final class Entry: @unchecked Sendable {  // Both values are set and read only under `lock`.
        let lock = NSLock()
        var file: RelatedFile?
        var yaml: Result<YAMLNode?, YAMLSyntaxError>?
        var table: LineTable?
    }

    private let readFile: @Sendable (String) -> RelatedFile
    private let resolve: @Sendable (String) -> String
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var reads = 0
    private var parses = 0

    /// Files read through `read`, the loader's file system and size limit; `resolve` gives a path with its links
    /// resolved (the key of its entry).
    init(read: @escaping @Sendable (String) -> RelatedFile, resolve: @escaping @Sendable (String) -> String = { $0 }) {
        self.readFile = read
        self.resolve = resolve
    }

    private func entry(_ path: String) -> Entry {
        let key = resolve(path)
        lock.lock()
        defer { lock.unlock() }
        if let entry = entries[key] { return entry }
        let entry = Entry()
        entries[key] = entry
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

    /// The bytes of a file the loader reads as a snippet file of its own: the text an import already read, else
    /// `read`'s, kept (when they are UTF-8 text without NUL bytes) for a file that imports it later.
    func ownBytes(_ path: String, read: () throws -> [UInt8]) throws -> [UInt8] {
        let entry = entry(path)
        entry.lock.lock()
        defer { entry.lock.unlock() }
        if case .text(let text, _) = entry.file { return Array(text.utf8) }
        let bytes = try read()
        count(read: 1)
        if !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) {
            entry.file = .text(text, canonicalPath: resolve(path))
        }
        return bytes
    }

    /// The YAML and line table of a file read as a snippet file of its own (`text`, its `bytes`): parsed here the
    /// first time only, and kept for a file that imports it.
    func ownYAML(_ path: String, text: String, bytes: [UInt8]) -> (yaml: Result<YAMLNode?, YAMLSyntaxError>, table: LineTable) {
        let entry = entry(path)
        entry.lock.lock()
        defer { entry.lock.unlock() }
        if let yaml = entry.yaml, let table = entry.table { return (yaml, table) }
        let yaml = YAML.parse(bytes)
        let table = LineTable(text)
        count(parse: 1)
        if entry.file == nil { entry.file = .text(text, canonicalPath: resolve(path)) }
        entry.yaml = yaml
        entry.table = table
        return (yaml, table)
    }

    /// How many reads and parses were done: work counts for the tests.
    var counts: (reads: Int, parses: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (reads, parses)
    }
}
