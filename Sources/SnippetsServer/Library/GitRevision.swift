import Foundation
import SnippetsCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads which commit a layer's folder is at, from the repository's own files (no `git` binary): `.git` (a
/// directory, or a file `gitdir: PATH` as in linked worktrees and submodules), `HEAD`, loose refs, `packed-refs`,
/// `commondir`, and the index (`DIRC` versions 2, 3 and 4) for uncommitted changes.
///
/// Uncommitted changes to snippet files are found the way git's own status check starts: each loaded snippet file
/// of the layer is compared with its index entry by size and modification time (seconds and nanoseconds); when
/// those differ, the file's blob id (SHA-1 of `blob <size>\0<bytes>`) is compared with the index's. A snippet file
/// missing from the index (untracked) or tracked but gone counts as a change. Limits: changes that are staged but
/// not committed are not noticed (the index is compared with the files, not with `HEAD`'s tree, which would need
/// the object database, packs included); SHA-256 repositories get `hasUncommittedChanges` nil when a file's stamp
/// differs; a repository file that is missing, too large or malformed makes the layer fall back to the hash of its
/// snippet files. Everything read is untrusted: sizes are capped, ref chains are cut after 5 steps, names with `..`
/// are refused.
public enum GitRevision {
    /// Where a work tree's repository files are.
    public struct Repository: Hashable, Sendable {
        /// The work tree's top directory (the one holding `.git`).
        public var workTree: String
        /// The directory with `HEAD` and `index` (`.git`, or `.git/worktrees/NAME` for a linked worktree).
        public var gitDirectory: String
        /// The directory with `refs` and `packed-refs` (`commondir`, else `gitDirectory`).
        public var commonDirectory: String
    }

    /// The largest `HEAD`, ref or `.git` file read.
    static let smallFileLimit = 64 * 1024
    /// The largest `packed-refs` or index read.
    static let largeFileLimit = 128 * 1024 * 1024
    /// How many directories up from a layer `.git` is looked for.
    static let maximumDepth = 64

    /// The repository whose work tree holds `path`, if any.
    public static func repository(containing path: String) -> Repository? {
        var directory = LibraryPath.normalize(path)
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) { return nil }
        if !isDirectory.boolValue { directory = LibraryPath.parent(directory) }
        for _ in 0..<maximumDepth {
            let dotGit = LibraryPath.join(directory, ".git")
            if FileManager.default.fileExists(atPath: dotGit, isDirectory: &isDirectory) {
                var gitDirectory = dotGit
                if !isDirectory.boolValue {
                    guard let text = readText(dotGit, limit: smallFileLimit), text.hasPrefix("gitdir:") else { return nil }
                    let target = text.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespacesAndNewlines)
                    guard !target.isEmpty else { return nil }
                    gitDirectory = LibraryPath.join(directory, target)
                }
                var common = gitDirectory
                if let text = readText(LibraryPath.join(gitDirectory, "commondir"), limit: smallFileLimit) {
                    let target = text.trimmingCharacters(in: .whitespacesAndNewlines)
                    if !target.isEmpty { common = LibraryPath.join(gitDirectory, target) }
                }
                return Repository(workTree: directory, gitDirectory: gitDirectory, commonDirectory: common)
            }
            if directory == "/" { return nil }
            directory = LibraryPath.parent(directory)
        }
        return nil
    }

    /// What `HEAD` names.
    public enum Head: Hashable, Sendable {
        /// The commit id (hex).
        case commit(String)
        /// A branch with no commit yet.
        case unborn
    }

    /// The commit at `HEAD`; nil when the repository files cannot be read.
    public static func head(of repository: Repository) -> Head? {
        guard var text = readText(LibraryPath.join(repository.gitDirectory, "HEAD"), limit: smallFileLimit) else { return nil }
        for _ in 0..<5 {
            text = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if isObjectID(text) { return .commit(text.lowercased()) }
            guard text.hasPrefix("ref:") else { return nil }
            let name = text.dropFirst(4).trimmingCharacters(in: .whitespaces)
            guard name.hasPrefix("refs/") || name == "HEAD", !name.split(separator: "/").contains(".."), !name.contains("\0")
            else { return nil }
            if let loose = readText(LibraryPath.join(repository.gitDirectory, name), limit: smallFileLimit)
                ?? readText(LibraryPath.join(repository.commonDirectory, name), limit: smallFileLimit)
            {
                text = loose
                continue
            }
            if let packed = packedRef(name, in: repository) { return .commit(packed) }
            return .unborn
        }
        return nil
    }

    /// The id `packed-refs` gives `name`.
    static func packedRef(_ name: String, in repository: Repository) -> String? {
        guard let text = readText(LibraryPath.join(repository.commonDirectory, "packed-refs"), limit: largeFileLimit) else { return nil }
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") && !line.hasPrefix("^") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[1] == name, isObjectID(String(parts[0])) { return parts[0].lowercased() }
        }
        return nil
    }

    static func isObjectID(_ text: String) -> Bool {
        (text.utf8.count == 40 || text.utf8.count == 64) && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) }
    }

    /// One index entry: what git recorded about a tracked file.
    struct IndexEntry: Hashable {
        var modifiedSeconds: UInt32
        var modifiedNanoseconds: UInt32
        var size: UInt32
        var objectID: String
    }

    /// The stage-0 entries of the index, by path relative to the work tree; nil when it is missing or malformed.
    static func indexEntries(of repository: Repository) -> [String: IndexEntry]? {
        guard let data = readData(LibraryPath.join(repository.gitDirectory, "index"), limit: largeFileLimit) else { return nil }
        return parseIndex([UInt8](data))
    }

    /// Parses index versions 2, 3 and 4 (SHA-1 ids); nil on anything unexpected.
    static func parseIndex(_ bytes: [UInt8]) -> [String: IndexEntry]? {
        func word(_ offset: Int) -> UInt32? {
            guard offset >= 0, offset + 4 <= bytes.count else { return nil }
            return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
        }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("DIRC".utf8), let version = word(4), (2...4).contains(version),
            let count = word(8), Int(count) <= bytes.count / 40
        else { return nil }
        var entries: [String: IndexEntry] = [:]
        var offset = 12
        var previous: [UInt8] = []
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        for _ in 0..<count {
            let start = offset
            guard let seconds = word(start + 8), let nanoseconds = word(start + 12), let size = word(start + 36),
                start + 62 <= bytes.count
            else { return nil }
            var id: [UInt8] = []
            for byte in bytes[(start + 40)..<(start + 60)] {
                id.append(hex[Int(byte >> 4)])
                id.append(hex[Int(byte & 0x0F)])
            }
            let flags = UInt16(bytes[start + 60]) << 8 | UInt16(bytes[start + 61])
            var cursor = start + 62
            if version >= 3, flags & 0x4000 != 0 { cursor += 2 }
            guard cursor <= bytes.count else { return nil }
            var path: [UInt8]
            if version == 4 {
                // A varint: how many bytes of the previous path to drop; then the rest, NUL-terminated.
                guard cursor < bytes.count else { return nil }
                var byte = bytes[cursor]
                cursor += 1
                var strip = Int(byte & 127)
                while byte & 128 != 0 {
                    guard cursor < bytes.count, strip < (1 << 24) else { return nil }
                    byte = bytes[cursor]
                    cursor += 1
                    strip = ((strip + 1) << 7) + Int(byte & 127)
                }
                guard strip <= previous.count, let end = bytes[cursor...].firstIndex(of: 0) else { return nil }
                path = Array(previous.dropLast(strip)) + bytes[cursor..<end]
                offset = end + 1
            } else {
                guard let end = bytes[cursor...].firstIndex(of: 0) else { return nil }
                path = Array(bytes[cursor..<end])
                // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
                offset = start + ((end - start + 8) & ~7)
                guard offset <= bytes.count else { return nil }
            }
            previous = path
            let stage = (flags >> 12) & 0x3
            if stage == 0 {
                entries[String(decoding: path, as: UTF8.self)] = IndexEntry(
                    modifiedSeconds: seconds, modifiedNanoseconds: nanoseconds, size: size,
                    objectID: String(decoding: id, as: UTF8.self))
            }
        }
        return entries
    }

    /// The revision of `layer`, whose loaded files are `files`: git when a work tree holds it and `HEAD` can be
    /// read, else the hash of its snippet files.
    /// A layer reached through a symbolic link (`~/snippets/team` → `~/src/team-snippets/snippets`) is looked up
    /// where it really is, since git records paths relative to the real work tree.
    public static func revision(of layer: LibraryLayer, files: [SnippetFile]) -> LayerRevision {
        let base = LibraryPath.normalize(layer.path)
        let real = LibraryPath.normalize((base as NSString).resolvingSymlinksInPath)
        guard real != base else { return revision(ofResolved: layer, files: files) }
        var resolved = layer
        resolved.path = real
        let resolvedFiles = files.map { file -> SnippetFile in
            var file = file
            let path = LibraryPath.normalize(file.path)
            if path == base {
                file.path = real
            } else if path.hasPrefix(base + "/") {
                file.path = real + path.dropFirst(base.count)
            }
            return file
        }
        var revision = revision(ofResolved: resolved, files: resolvedFiles)
        if revision.kind == .files { revision = filesRevision(of: layer, files: files) }
        return revision
    }

    private static func revision(ofResolved layer: LibraryLayer, files: [SnippetFile]) -> LayerRevision {
        guard let repository = repository(containing: layer.path), let head = head(of: repository) else {
            return filesRevision(of: layer, files: files)
        }
        let commit: String?
        if case .commit(let id) = head { commit = id } else { commit = nil }
        let modified = hasUncommittedChanges(layer: layer, files: files, repository: repository, objectIDLength: commit?.count ?? 40)
        return LayerRevision(kind: .git, commit: commit, hasUncommittedChanges: modified)
    }

    /// The hash of a layer's snippet files: each file's path relative to the layer and an FNV-1a hash of its bytes.
    public static func filesRevision(of layer: LibraryLayer, files: [SnippetFile]) -> LayerRevision {
        var hash = FNV1a.hash([UInt8]())
        for file in files.sorted(by: { $0.path < $1.path }) {
            hash = FNV1a.hash(relative(file.path, to: layer.path).utf8, continuing: hash)
            hash = FNV1a.hash([0], continuing: hash)
            withUnsafeBytes(of: file.contentHash.littleEndian) { hash = FNV1a.hash($0, continuing: hash) }
        }
        return LayerRevision(kind: .files, filesHash: FNV1a.hex(hash))
    }

    static func relative(_ path: String, to base: String) -> String {
        let base = LibraryPath.normalize(base)
        let path = LibraryPath.normalize(path)
        if path == base { return LibraryPath.name(path) }
        let prefix = base.hasSuffix("/") ? base : base + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    /// Whether the layer's snippet files differ from the index; nil when that cannot be decided.
    static func hasUncommittedChanges(layer: LibraryLayer, files: [SnippetFile], repository: Repository, objectIDLength: Int) -> Bool? {
        guard let entries = indexEntries(of: repository) else { return nil }
        let root = repository.workTree
        var undecided = false
        var loaded: Set<String> = []
        for file in files {
            let path = relative(file.path, to: root)
            loaded.insert(path)
            guard let entry = entries[path] else { return true }  // untracked
            guard let stamp = stamp(of: file.path) else { return true }  // gone since loading
            if stamp.size != entry.size { return true }
            if stamp.seconds == entry.modifiedSeconds && stamp.nanoseconds == entry.modifiedNanoseconds { continue }
            guard objectIDLength == 40 else {
                undecided = true
                continue
            }
            guard let data = readData(file.path, limit: largeFileLimit) else { return true }
            if SHA1.gitBlobID([UInt8](data)) != entry.objectID { return true }
        }
        // Tracked snippet files of the layer that are gone from the disk.
        let layerPrefix = relative(layer.path, to: root)
        let inLayer = LibraryPath.normalize(layer.path) == LibraryPath.normalize(root) ? "" : layerPrefix + "/"
        for path in entries.keys where path.hasPrefix(inLayer) && !loaded.contains(path) {
            let absolute = LibraryPath.join(root, path)
            guard LibraryLoader.context(forFileAt: absolute, root: layer.path) != nil else { continue }
            if !FileManager.default.fileExists(atPath: absolute) { return true }
        }
        return undecided ? nil : false
    }

    /// The files whose change means the revision may have changed (a commit, a checkout, a pull): `HEAD`, the
    /// index, `packed-refs` and the refs directory.
    public static func watchedPaths(of repository: Repository) -> [String] {
        [
            LibraryPath.join(repository.gitDirectory, "HEAD"), LibraryPath.join(repository.gitDirectory, "index"),
            LibraryPath.join(repository.commonDirectory, "packed-refs"), LibraryPath.join(repository.commonDirectory, "refs"),
        ]
    }

    struct Stamp {
        var size: UInt32
        var seconds: UInt32
        var nanoseconds: UInt32
    }

    static func stamp(of path: String) -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
            let time = info.st_mtimespec
        #else
            let time = info.st_mtim
        #endif
        // The index keeps the low 32 bits, as git does.
        return Stamp(
            size: UInt32(truncatingIfNeeded: info.st_size), seconds: UInt32(truncatingIfNeeded: time.tv_sec),
            nanoseconds: UInt32(truncatingIfNeeded: time.tv_nsec))
    }

    static func readData(_ path: String, limit: Int) -> Data? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = (attributes[.size] as? NSNumber)?.intValue, size <= limit
        else { return nil }
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return try? handle.read(upToCount: limit + 1).flatMap { $0.count > limit ? nil : $0 } ?? Data()
    }

    static func readText(_ path: String, limit: Int) -> String? {
        guard let data = readData(path, limit: limit) else { return nil }
        return String(data: data, encoding: .utf8)
    }
}
