import Foundation
import SnippetsCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What was learned from a repository's large files (`packed-refs`, the index), kept while the files stay the same.
///
/// Every save, learn and watched-file change reloads the library and asks each layer's revision again; a
/// `packed-refs` of tens of megabytes (a repository with many tags) re-read each time made each save take
/// seconds. A file is the same while its identity (device and inode: git replaces these files by renaming a new
/// one over them), size, modification and status-change times are; a file modified within the last
/// `settlingSeconds` is never trusted from the cache, since a rewrite in the same clock tick could keep all of them
/// (git's "racy" files). Small files (`HEAD`, loose refs) are read every time: reading them costs less than
/// deciding whether to.
///
/// **Invariant:** the cache holds answers, never file contents: per `packed-refs` the ids of the names asked for,
/// per index and layer the `GitRevision.IndexScan` (entries of loaded files only); at most `maximumEntries` of each.
final class GitFileCache: @unchecked Sendable {  // every stored property is read and written holding `lock`
    /// The one cache of the process (the server and every command).
    static let shared = GitFileCache()

    /// How many files (and layers) are remembered; past it, everything is forgotten and learned again.
    static let maximumEntries = 64
    /// How old a file's modification time must be before what was read from it is reused.
    static let settlingSeconds = 2

    /// A file as `stat` sees it: what changes whenever its bytes may have.
    struct Identity: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var modifiedNanoseconds: Int64
        var changed: Int64
        var changedNanoseconds: Int64

        init(_ info: stat) {
            #if canImport(Darwin)
                let modified = info.st_mtimespec
                let changed = info.st_ctimespec
            #else
                let modified = info.st_mtim
                let changed = info.st_ctim
            #endif
            device = UInt64(truncatingIfNeeded: info.st_dev)
            inode = UInt64(truncatingIfNeeded: info.st_ino)
            size = Int64(info.st_size)
            self.modified = Int64(modified.tv_sec)
            modifiedNanoseconds = Int64(modified.tv_nsec)
            self.changed = Int64(changed.tv_sec)
            changedNanoseconds = Int64(changed.tv_nsec)
        }

        /// The identity of the file at `path` now; nil when there is none.
        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            self.init(info)
        }

        /// Whether the file was last changed long enough ago that a rewrite would show in these fields.
        var isSettled: Bool {
            let now = Int64(Date().timeIntervalSince1970)
            return modified + Int64(GitFileCache.settlingSeconds) < now
        }
    }

    private struct PackedRefs {
        var identity: Identity
        var ids: [String: String?] = [:]
    }

    private struct ScanKey: Hashable {
        var path: String
        var layerPrefix: String
        var layerRoot: String
        var workTree: String
        var loaded: Set<String>
    }

    private struct Scan {
        var identity: Identity
        var scan: GitRevision.IndexScan?
    }

    private let lock = NSLock()
    private var packedRefs: [String: PackedRefs] = [:]
    private var scans: [ScanKey: Scan] = [:]
    private var reads = 0

    /// How many times this cache read a file rather than answer from what it kept: the count a test watches to
    /// see that an unchanged file is not read again.
    var filesRead: Int { lock.withLock { reads } }

    /// The id `packed-refs` at `path` gives `name`; the file is read again only when it changed.
    func packedRef(_ name: String, path: String) -> String? {
        guard let identity = Identity(path: path) else { return nil }
        if identity.isSettled {
            // Outer nil: not known; `.some(nil)`: known to be absent.
            let known: String?? = lock.withLock {
                guard let entry = packedRefs[path], entry.identity == identity else { return nil }
                return entry.ids[name]
            }
            if let known { return known }
        }
        guard let (bytes, read) = self.read(path, limit: GitRevision.largeFileLimit) else { return nil }
        let id = GitRevision.packedRef(named: name, in: bytes)
        lock.withLock {
            guard read.isSettled else { return }
            if packedRefs[path]?.identity != read {
                if packedRefs.count >= Self.maximumEntries { packedRefs.removeAll() }
                packedRefs[path] = PackedRefs(identity: read)
            }
            packedRefs[path]?.ids[name] = .some(id)
        }
        return id
    }

    /// The index at `path` scanned for one layer (`GitRevision.scanIndex`); read again only when the index, the
    /// layer or its loaded files changed, or a tracked file the scan found unloaded is gone.
    func indexScan(path: String, layerPrefix: String, layerRoot: String, workTree: String, loaded: Set<String>) -> GitRevision.IndexScan? {
        guard let identity = Identity(path: path) else { return nil }
        let key = ScanKey(path: path, layerPrefix: layerPrefix, layerRoot: layerRoot, workTree: workTree, loaded: loaded)
        if identity.isSettled, let known = lock.withLock({ scans[key] }), known.identity == identity {
            // A malformed index stays malformed; a scan is good while its unloaded files are still there.
            guard let scan = known.scan else { return nil }
            if (scan.unloadedTracked ?? []).allSatisfy({ FileManager.default.fileExists(atPath: $0) }) { return scan }
        }
        guard let (bytes, read) = self.read(path, limit: GitRevision.largeFileLimit) else { return nil }
        let scan = GitRevision.scanIndex(bytes, layerPrefix: layerPrefix, layerRoot: layerRoot, workTree: workTree, loaded: loaded)
        lock.withLock {
            // A scan that stopped at a gone file, or kept too many unloaded files to check again, is not kept.
            guard read.isSettled, scan?.isTrackedFileGone != true, scan == nil || scan?.unloadedTracked != nil else { return }
            if scans.count >= Self.maximumEntries { scans.removeAll() }
            scans[key] = Scan(identity: read, scan: scan)
        }
        return scan
    }

    /// The bytes of the regular file at `path` and its identity from the descriptor they were read from.
    private func read(_ path: String, limit: Int) -> ([UInt8], Identity)? {
        lock.withLock { reads += 1 }
        guard let file = try? BoundedFileRead.openRegularFile(path) else { return nil }
        defer { close(file.descriptor) }
        guard let bytes = try? BoundedFileRead.readAll(file, path: path, maximumSize: limit) else { return nil }
        return (bytes, Identity(file.info))
    }
}
