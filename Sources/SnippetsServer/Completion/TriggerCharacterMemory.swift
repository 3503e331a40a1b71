import Foundation
import SnippetsCore

/// The trigger characters a whole load of a library gave a client that cannot register completion later (Neovim's
/// built-in completion reads them once, from `initialize`'s reply), kept under
/// `$XDG_CACHE_HOME/snippets-lsp/trigger-characters/` (by default `~/.cache/…`) with the size and modification time
/// of every file under the library's roots. On a later start with the same library, client kind and files,
/// `initialize` answers at once with them instead of waiting for the whole library to be read; the files of the
/// document's language then serve the first completion (`LibraryService.completionSnapshot(forLanguage:within:)`).
///
/// **Invariant:** a kept list is used only when the key (layers, workspace folders, whether word characters count)
/// and every file's stamp are as they were when it was kept, and it was kept only when no file under the roots had
/// changed since that load began: it is the list that load gave. Anything else (no file, another key, a file that
/// cannot be read, a stamp that differs) counts as nothing kept, and `initialize` waits for the load as before.
/// The cache holds paths, stamps, characters and a language identifier only, and is written only under its folder.
///
/// With the list, the folders the load's walk listed are kept with their stamps (`DiskStamps.WalkKeeping.Walk`):
/// a later start checks them and the files (a `stat` each) instead of walking the library again, and walks only
/// when one changed, as the periodic check does.
public struct TriggerCharacterMemory: Sendable {
    /// The folder the lists are kept in.
    public let folder: String
    /// The most bytes of a kept file read (a library of 100,000 files, with their paths).
    static let maximumFileSize = 32 << 20
    /// Bumped when what is kept, or how the characters are chosen, changes.
    static let version = 2

    public init(folder: String) { self.folder = folder }

    /// The memory for `environment`: `$XDG_CACHE_HOME` when it is absolute, else `$HOME/.cache`.
    public init(environment: [String: String]) {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? LibraryPath.join(home, ".cache")
        self.init(folder: LibraryPath.join(cache, "snippets-lsp/trigger-characters"))
    }

    /// What a kept list is for.
    public struct Key: Hashable, Sendable {
        var text: String

        public init(layers: [LibraryLayer], workspaceFolders: [String], includingWordCharacters: Bool) {
            let layerLines = layers.map { "\($0.name)\u{1F}\($0.path)\u{1F}\($0.isReadOnly)\u{1F}\($0.isNamed)" }
            text = ([String(TriggerCharacterMemory.version), String(TriggerCharacters.limit), String(includingWordCharacters)]
                + layerLines + ["--"] + workspaceFolders).joined(separator: "\n")
        }

        /// The file name: a hash of the key, so no path becomes part of one.
        var fileName: String { FNV1a.hex(FNV1a.hash(text.utf8)) + ".json" }
    }

    /// One kept list, as written.
    struct File: Codable {
        var version: Int
        var key: String
        /// Path → [size, modification time in seconds since 1970].
        var files: [String: [Double]]
        var characters: [String]
        /// The roots the walk started from, and every folder it listed (and every root) → its stamp as `files`
        /// writes one, or [] where nothing was there; nil when the walk was not kept.
        var roots: [String]?
        var folders: [String: [Double]]?
        /// The language of the first document the session that kept the list opened, when one was open by then.
        var firstLanguage: String?

        /// The walk kept with the list, when one was.
        var walk: DiskStamps.WalkKeeping.Walk? {
            guard let roots, let folders else { return nil }
            var stamps: [String: FileStamp] = [:]
            for (path, written) in files {
                guard let stamp = TriggerCharacterMemory.stamp(written) else { return nil }
                stamps[path] = stamp
            }
            var folderStamps: [String: FileStamp?] = [:]
            for (path, written) in folders {
                if written.isEmpty {
                    folderStamps.updateValue(nil, forKey: path)
                } else {
                    guard let stamp = TriggerCharacterMemory.stamp(written) else { return nil }
                    folderStamps[path] = stamp
                }
            }
            return DiskStamps.WalkKeeping.Walk(roots: roots, folders: folderStamps, stamps: stamps)
        }
    }

    /// Whether a list may be kept for `key` (so `recall` is worth a walk of the library's files).
    public func hasList(for key: Key) -> Bool {
        FileManager.default.fileExists(atPath: LibraryPath.join(folder, key.fileName))
    }

    /// A kept list, recalled.
    public struct Recalled: Sendable, Equatable {
        public var characters: [String]
        /// The language of the first document the session that kept it opened, if any.
        public var firstLanguage: String?
    }

    /// The list kept for `key`, when the files under the roots are exactly those `stamps` gives; else nil.
    public func recall(_ key: Key, stamps: [String: FileStamp]) -> [String]? {
        recall(key, stamps: { stamps })?.characters
    }

    /// The list kept for `key`, when the files under the roots are exactly those `stamps()` gives; else nil.
    /// `walk` first adopts the walk kept with the list (`DiskStamps.WalkKeeping.adopt(_:)`), so that `stamps()`,
    /// when it is that walk's, stats the kept folders and files instead of walking.
    public func recall(_ key: Key, adoptingInto walk: DiskStamps.WalkKeeping? = nil, stamps: () -> [String: FileStamp]) -> Recalled? {
        let path = LibraryPath.join(folder, key.fileName)
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: Self.maximumFileSize + 1), data.count <= Self.maximumFileSize,
            let file = try? JSONDecoder().decode(File.self, from: data),
            file.version == Self.version, file.key == key.text
        else { return nil }
        if let walk, let kept = file.walk { walk.adopt(kept) }
        let stamps = stamps()
        guard file.files.count == stamps.count else { return nil }
        for (path, stamp) in stamps {
            guard let kept = file.files[path], kept == Self.written(stamp) else { return nil }
        }
        return Recalled(characters: file.characters, firstLanguage: file.firstLanguage.flatMap(Self.languageKept))
    }

    /// A language identifier as kept: a client's `languageId` of at most 64 characters, else none.
    static func languageKept(_ language: String) -> String? {
        language.isEmpty || language.count > 64 ? nil : language
    }

    /// Keeps `characters` for `key` with the stamps of the files they came from, `walk` (the walk that found
    /// them, when it gave those very stamps) and the session's first document language. Best effort: a folder that
    /// cannot be written keeps nothing.
    public func keep(
        _ characters: [String], for key: Key, stamps: [String: FileStamp], walk: DiskStamps.WalkKeeping.Walk? = nil,
        firstLanguage: String? = nil
    ) {
        var file = File(version: Self.version, key: key.text, files: stamps.mapValues(Self.written), characters: characters)
        file.firstLanguage = firstLanguage.flatMap(Self.languageKept)
        if let walk, walk.stamps == stamps {
            file.roots = walk.roots
            file.folders = walk.folders.mapValues { $0.map(Self.written) ?? [] }
        }
        guard let data = try? JSONEncoder().encode(file), data.count <= Self.maximumFileSize else { return }
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try? data.write(to: URL(fileURLWithPath: LibraryPath.join(folder, key.fileName)), options: .atomic)
    }

    private static func written(_ stamp: FileStamp) -> [Double] {
        [Double(stamp.size), stamp.modified.timeIntervalSince1970]
    }

    /// The stamp `written` wrote, or nil for what it never writes.
    static func stamp(_ written: [Double]) -> FileStamp? {
        guard written.count == 2, let size = Int(exactly: written[0]), written[1].isFinite else { return nil }
        return FileStamp(size: size, modified: Date(timeIntervalSince1970: written[1]))
    }
}
