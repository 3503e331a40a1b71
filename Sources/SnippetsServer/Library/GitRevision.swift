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
///
/// **Invariant:** the large repository files (`packed-refs`, the index) are read as bytes, in time and memory
/// linear in their size (`scanIndex` keeps one path, edited in place, and only the entries of the layer's loaded
/// files), and are read again only when their identity (device, inode), size or modification time changes
/// (`GitFileCache`); a reload, save or learn that changes neither re-reads neither.
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

    /// The id `packed-refs` gives `name`, from the bytes read when the file last changed (`GitFileCache`).
    static func packedRef(_ name: String, in repository: Repository) -> String? {
        GitFileCache.shared.packedRef(name, path: LibraryPath.join(repository.commonDirectory, "packed-refs"))
    }

    /// The id `packed-refs`' bytes give `name`: one pass over the lines, nothing kept but the answer.
    static func packedRef(named name: String, in bytes: [UInt8]) -> String? {
        let name = Array(name.utf8)
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            var lineEnd = end
            if lineEnd > start, bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            let first = bytes[start]
            if lineEnd > start, first != UInt8(ascii: "#"), first != UInt8(ascii: "^") {
                var space = start
                while space < lineEnd, bytes[space] != 0x20 { space += 1 }
                let idLength = space - start
                if space < lineEnd, idLength == 40 || idLength == 64, lineEnd - space - 1 == name.count,
                    bytes[(space + 1)..<lineEnd].elementsEqual(name), bytes[start..<space].allSatisfy(isHexDigit)
                {
                    return String(decoding: bytes[start..<space], as: UTF8.self).lowercased()
                }
            }
            start = end + 1
        }
        return nil
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 97 && byte <= 102) || (byte >= 65 && byte <= 70)
    }

    static func isObjectID(_ text: String) -> Bool {
        (text.utf8.count == 40 || text.utf8.count == 64) && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) }
    }

    /// One index entry: what git recorded about a tracked file.
    struct IndexEntry: Hashable, Sendable {
        var modifiedSeconds: UInt32
        var modifiedNanoseconds: UInt32
        var size: UInt32
        var objectID: String
    }

    /// What the revision needs from the index about one layer, and nothing more.
    struct IndexScan: Hashable, Sendable {
        /// The stage-0 entries of the layer's loaded snippet files, by path relative to the work tree.
        var entries: [String: IndexEntry] = [:]
        /// Whether a tracked snippet file of the layer is gone from the disk (the scan stops there).
        var isTrackedFileGone = false
        /// Tracked snippet files of the layer that were on the disk but not loaded (in a hidden folder, over a
        /// limit), absolute: a reused scan checks they are still there. Nil when there were too many to keep.
        var unloadedTracked: [String]? = []
    }

    /// The longest path an index entry may have (git's own limit on a name's length in the flags is 4095).
    static let maximumIndexPathLength = 4096
    /// The most unloaded tracked snippet files a scan keeps to check again (`IndexScan.unloadedTracked`).
    static let maximumUnloadedTracked = 4096

    /// Reads index versions 2, 3 and 4 (SHA-1 ids) for the layer whose folder is `layerPrefix` (relative to the
    /// work tree `workTree`, `/`-terminated, empty for the whole work tree) and whose loaded files are `loaded`
    /// (relative to the work tree); nil on anything unexpected, entries out of git's order included.
    ///
    /// Linear in the index's bytes, in time and memory, whatever its paths: version 4 writes each path as the
    /// previous one less some bytes plus a suffix, so one path is kept and edited in place (the bytes dropped are
    /// bytes appended before), the order check compares only the suffix with the bytes it replaces, and how much
    /// of the path is the layer's folder is carried from one entry to the next. Only the entries of loaded files are
    /// kept; a path that is in the layer and names a snippet file but was not loaded is checked on the disk once.
    static func scanIndex(
        _ bytes: [UInt8], layerPrefix: String, layerRoot: String, workTree: String, loaded: Set<String>,
        exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }
    ) -> IndexScan? {
        func word(_ offset: Int) -> UInt32? {
            guard offset >= 0, offset + 4 <= bytes.count else { return nil }
            return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
        }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("DIRC".utf8), let version = word(4), (2...4).contains(version),
            let count = word(8), Int(count) <= bytes.count / 40
        else { return nil }
        let prefix = Array(layerPrefix.utf8)
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var scan = IndexScan()
        var path: [UInt8] = []
        path.reserveCapacity(256)
        var prefixMatched = 0  // how many leading bytes of `path` are `prefix`'s
        var offset = 12
        for position in 0..<Int(count) {
            let start = offset
            guard let seconds = word(start + 8), let nanoseconds = word(start + 12), let size = word(start + 36),
                start + 62 <= bytes.count
            else { return nil }
            let flags = UInt16(bytes[start + 60]) << 8 | UInt16(bytes[start + 61])
            var cursor = start + 62
            if version >= 3, flags & 0x4000 != 0 { cursor += 2 }
            guard cursor <= bytes.count else { return nil }
            var kept: Int  // bytes at the start of `path` shared with the previous path
            var isRepeat = false  // the same path as the previous entry (another stage of it)
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
                guard strip <= path.count, let end = bytes[cursor...].firstIndex(of: 0) else { return nil }
                kept = path.count - strip
                let suffix = bytes[cursor..<end]
                if position > 0 {
                    // Git's order (bytes, a shorter path first), decided where the two paths part.
                    let replaced = path[kept...]
                    if suffix.lexicographicallyPrecedes(replaced) { return nil }
                    isRepeat = suffix.elementsEqual(replaced)
                }
                path.removeLast(strip)
                path.append(contentsOf: suffix)
                offset = end + 1
            } else {
                guard let end = bytes[cursor...].firstIndex(of: 0) else { return nil }
                let name = bytes[cursor..<end]
                if position > 0 {
                    if name.lexicographicallyPrecedes(path) { return nil }
                    isRepeat = name.elementsEqual(path)
                }
                kept = 0
                path.removeAll(keepingCapacity: true)
                path.append(contentsOf: name)
                // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
                offset = start + ((end - start + 8) & ~7)
                guard offset <= bytes.count else { return nil }
            }
            guard path.count <= maximumIndexPathLength else { return nil }
            prefixMatched = min(prefixMatched, kept)
            while prefixMatched < prefix.count, prefixMatched < path.count, path[prefixMatched] == prefix[prefixMatched] {
                prefixMatched += 1
            }
            let stage = (flags >> 12) & 0x3
            guard stage == 0, !isRepeat, prefixMatched == prefix.count, looksLikeSnippetFile(path) else { continue }
            let relative = String(decoding: path, as: UTF8.self)
            if loaded.contains(relative) {
                var id: [UInt8] = []
                id.reserveCapacity(40)
                for byte in bytes[(start + 40)..<(start + 60)] {
                    id.append(hex[Int(byte >> 4)])
                    id.append(hex[Int(byte & 0x0F)])
                }
                scan.entries[relative] = IndexEntry(
                    modifiedSeconds: seconds, modifiedNanoseconds: nanoseconds, size: size,
                    objectID: String(decoding: id, as: UTF8.self))
                continue
            }
            // Tracked, in the layer, not loaded: gone from the disk, or a file the loader passed over.
            let absolute = LibraryPath.join(workTree, relative)
            guard FormatRegistry.context(forFileAt: absolute, root: layerRoot) != nil else { continue }
            guard exists(absolute) else { return IndexScan(isTrackedFileGone: true) }
            if (scan.unloadedTracked?.count ?? 0) < maximumUnloadedTracked {
                scan.unloadedTracked?.append(absolute)
            } else {
                scan.unloadedTracked = nil
            }
        }
        return scan
    }

    /// Whether a path's name may be a snippet file's (`FormatRegistry.mayBeSnippetFile(named:)`), from its bytes.
    static func looksLikeSnippetFile(_ path: [UInt8]) -> Bool {
        FormatRegistry.mayBeSnippetFile(named: path)
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
        let root = repository.workTree
        let relativePaths = files.map { relative($0.path, to: root) }
        let inLayer = LibraryPath.normalize(layer.path) == LibraryPath.normalize(root) ? "" : relative(layer.path, to: root) + "/"
        guard
            let scan = GitFileCache.shared.indexScan(
                path: LibraryPath.join(repository.gitDirectory, "index"), layerPrefix: inLayer, layerRoot: layer.path,
                workTree: root, loaded: Set(relativePaths))
        else { return nil }
        if scan.isTrackedFileGone { return true }
        var undecided = false
        for (file, path) in zip(files, relativePaths) {
            guard let entry = scan.entries[path] else { return true }  // untracked
            guard let stamp = stamp(of: file.path) else { return true }  // gone since loading
            if stamp.size != entry.size { return true }
            if stamp.seconds == entry.modifiedSeconds && stamp.nanoseconds == entry.modifiedNanoseconds { continue }
            guard objectIDLength == 40 else {
                undecided = true
                continue
            }
            guard let bytes = readData(file.path, limit: largeFileLimit) else { return true }
            if SHA1.gitBlobID(bytes) != entry.objectID { return true }
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

    /// The bytes of the regular file at `path`, read without blocking and never past `limit` (`BoundedFileRead`).
    static func readData(_ path: String, limit: Int) -> [UInt8]? {
        try? BoundedFileRead.contents(of: path, maximumSize: limit)
    }

    static func readText(_ path: String, limit: Int) -> String? {
        guard let bytes = readData(path, limit: limit) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
