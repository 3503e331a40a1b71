import Foundation
import SnippetsCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a snippet file could not be changed.
public enum SnippetFileWriteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The edit itself was refused (a duplicate, an unreadable file).
    case refused(SnippetFileEditError)
    /// The file's directory does not exist.
    case missingDirectory(String)
    /// A system call failed.
    case system(operation: String, reason: String)
    /// The file kept changing under us.
    case keptChanging(attempts: Int)
    /// The file may not be written: read-only, another owner, hard links, not a regular file.
    case notWritable(path: String, reason: String)
    /// The file would grow past the size the loader reads.
    case tooLarge(size: Int, limit: Int)

    public var description: String {
        switch self {
        case .refused(let error): error.description
        case .missingDirectory(let path): "the directory \(path) does not exist; create it or set snippets.saveTo"
        case .system(let operation, let reason): "could not \(operation): \(reason)"
        case .keptChanging(let attempts): "the file changed on disk during each of \(attempts) attempts; nothing was written, try again"
        case .notWritable(let path, let reason): "\(path) \(reason); nothing was written"
        case .tooLarge(let size, let limit):
            "the file would be \(size) bytes, over the \(limit)-byte limit the library reads, so the snippet would not load; "
                + "nothing was written (save to another file with snippets.saveTo)"
        }
    }
}

/// Changes a file on disk without ever losing a byte someone else wrote.
///
/// **Invariant:** the file is replaced atomically (a temporary file in the same directory, flushed, with the
/// original's mode and owner, then renamed over it), and only if its bytes are still the ones the edit was computed
/// from; otherwise the edit is computed again from the fresh bytes. The file is opened without blocking and read
/// only when `fstat` on that descriptor says it is a regular file under the size limit; an advisory `flock` is held
/// on it while saving. On Linux the commit is an atomic exchange (`renameat2(RENAME_EXCHANGE)`), so the bytes it
/// displaced are compared again after the write: a write by another program in the last instant is put back and
/// the edit redone on top of it, never lost. A read-only file, a file owned by someone else or with other hard
/// links, and a result over the loader's size limit are refused. A missing file is created with `link`, which
/// fails rather than overwrite a file that appeared meanwhile. This is the only code in the server that writes to
/// library files.
public struct SnippetFileWriter: Sendable {
    /// How many times an edit is recomputed when the file changes under it.
    public var attempts: Int
    /// The largest file the writer produces: the loader's limit, so a saved snippet always loads.
    public var maximumFileSize: Int
    /// Called between computing the edit and committing it: tests change the file here to race the writer.
    public var beforeCommit: (@Sendable (_ path: String, _ attempt: Int) -> Void)?
    /// Called after the last comparison, right before the rename: tests write here to race the commit itself.
    public var beforeRename: (@Sendable (_ path: String, _ attempt: Int) -> Void)?

    public init(
        attempts: Int = 5, maximumFileSize: Int = LibraryLoader.defaultMaximumFileSize,
        beforeCommit: (@Sendable (_ path: String, _ attempt: Int) -> Void)? = nil,
        beforeRename: (@Sendable (_ path: String, _ attempt: Int) -> Void)? = nil
    ) {
        self.attempts = attempts
        self.maximumFileSize = maximumFileSize
        self.beforeCommit = beforeCommit
        self.beforeRename = beforeRename
    }

    /// Applies `edit` (the current bytes, nil when the file is missing → the new bytes) to the file at `path`.
    /// Returns the bytes written.
    @discardableResult
    public func update(
        _ path: String, edit: ([UInt8]?) throws(SnippetFileEditError) -> [UInt8]
    ) throws(SnippetFileWriteError) -> [UInt8] {
        // A symbolic link (a dotfiles setup) is followed: renaming over it would replace the link, not its file.
        let path = Self.resolvingLinks(path)
        let directory = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.isEmpty ? "." : directory, isDirectory: &isDirectory),
            isDirectory.boolValue
        else { throw .missingDirectory(directory) }

        for attempt in 1...max(1, attempts) {
            let before = try contents(of: path)
            defer { if let before { close(before.descriptor) } }
            if let before { try Self.checkWritable(path, before.info) }
            // Advisory: programs that lock (editors' save helpers, another server) wait for us and we for them.
            if let before, !Self.lock(before.descriptor) { continue }
            let updated: [UInt8]
            do {
                updated = try edit(before?.bytes)
            } catch {
                throw .refused(error)
            }
            guard updated.count <= maximumFileSize else { throw .tooLarge(size: updated.count, limit: maximumFileSize) }
            let temporary = try Self.writeTemporary(updated, beside: path, like: before?.info, attributesFrom: before?.descriptor)
            beforeCommit?(path, attempt)
            // Compare right before committing: anything written since we read is kept by starting over.
            let now = try contents(of: path)
            if let now { close(now.descriptor) }
            guard now?.bytes == before?.bytes else {
                unlink(temporary)
                continue
            }
            beforeRename?(path, attempt)
            guard let before else {
                let linked = link(temporary, path)
                let code = errno
                unlink(temporary)
                if linked == 0 { return updated }
                if code == EEXIST { continue }
                throw .system(operation: "create \(path)", reason: String(cString: strerror(code)))
            }
            if let exchange = Self.exchange {
                guard exchange(AT_FDCWD, temporary, AT_FDCWD, path, Self.renameExchange) == 0 else {
                    let reason = String(cString: strerror(errno))
                    unlink(temporary)
                    throw .system(operation: "replace \(path)", reason: reason)
                }
                // `temporary` now names what `path` held at the instant of the exchange: compare it again.
                let displaced = try? BoundedFileRead.contents(of: temporary, maximumSize: maximumFileSize + 1, followLinks: false)
                if displaced != before.bytes {
                    // Another program wrote in the last instant: put its file back and redo the edit on top of it.
                    _ = exchange(AT_FDCWD, temporary, AT_FDCWD, path, Self.renameExchange)
                    unlink(temporary)
                    continue
                }
                unlink(temporary)
                return updated
            }
            guard rename(temporary, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw .system(operation: "replace \(path)", reason: reason)
            }
            // Without an atomic exchange: a write into the old file after the comparison shows on its descriptor.
            let theirs = Self.readAll(before.descriptor)
            if theirs != before.bytes {
                // Their bytes are only in the old file now: keep them beside it rather than lose them.
                let copy = try? Self.writeTemporary(theirs, beside: path, like: before.info)
                throw .system(
                    operation: "save to \(path) without a conflict",
                    reason: "another program wrote to it during the save; its version is in \(copy ?? "(could not be kept)")")
            }
            return updated
        }
        throw .keptChanging(attempts: max(1, attempts))
    }

    /// `path` with symbolic links resolved when it exists; else `path` itself.
    private static func resolvingLinks(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// An open file's descriptor, bytes and `fstat`.
    private struct Snapshot {
        let descriptor: Int32
        let bytes: [UInt8]
        let info: stat
    }

    /// The file opened without blocking and without following a link (the path is already resolved), checked to be
    /// a regular file under the size limit, and read; nil when it does not exist. The caller closes the descriptor.
    private func contents(of path: String) throws(SnippetFileWriteError) -> Snapshot? {
        let file: BoundedFileRead.OpenFile
        do {
            file = try BoundedFileRead.openRegularFile(path, followLinks: false)
        } catch {
            var info = stat()
            if lstat(path, &info) != 0, errno == ENOENT { return nil }
            throw .notWritable(path: path, reason: "cannot be read (\(error.reason))")
        }
        do {
            let bytes = try BoundedFileRead.readAll(file, path: path, maximumSize: maximumFileSize)
            return Snapshot(descriptor: file.descriptor, bytes: bytes, info: file.info)
        } catch let error as FileTooLarge {
            close(file.descriptor)
            throw .tooLarge(size: error.size, limit: maximumFileSize)
        } catch {
            close(file.descriptor)
            throw .system(operation: "read \(path)", reason: "\(error)")
        }
    }

    /// Refuses what an atomic replace would damage or what the user protected.
    private static func checkWritable(_ path: String, _ info: stat) throws(SnippetFileWriteError) {
        if info.st_mode & 0o222 == 0 || access(path, W_OK) != 0 {
            throw .notWritable(path: path, reason: "is read-only")
        }
        if info.st_nlink > 1 {
            throw .notWritable(path: path, reason: "has \(info.st_nlink) hard links, which replacing it would split")
        }
        if info.st_uid != geteuid(), geteuid() != 0 {
            throw .notWritable(path: path, reason: "belongs to another user, and a saved copy would belong to you")
        }
    }

    /// Takes an exclusive advisory lock, waiting a little for another holder; false when it stays held.
    private static func lock(_ descriptor: Int32) -> Bool {
        for _ in 0..<20 {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            if errno != EWOULDBLOCK && errno != EINTR { return true }  // no locking here (NFS without locks): go on
            usleep(10_000)
        }
        return false
    }

    /// Everything readable on `descriptor` from the start (the old file after a plain rename).
    private static func readAll(_ descriptor: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var offset: off_t = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return bytes }
            bytes.append(contentsOf: buffer[0..<count])
            offset += off_t(count)
        }
    }

    /// `renameat2(2)` with `RENAME_EXCHANGE`, where the C library has it (Linux); looked up at run time because the
    /// Swift overlay does not declare it.
    private typealias Exchange = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    private static let renameExchange: UInt32 = 2
    private static let exchange: Exchange? = {
        #if os(Linux)
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return nil }
            return unsafeBitCast(symbol, to: Exchange.self)
        #else
            return nil
        #endif
    }()

    /// Writes `bytes` to a new temporary file in `path`'s directory, flushed to disk; returns its path.
    private static func writeTemporary(
        _ bytes: [UInt8], beside path: String, like original: stat?, attributesFrom source: Int32? = nil
    ) throws(SnippetFileWriteError) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        let name = "." + (path as NSString).lastPathComponent + ".saving-XXXXXX"
        var template = Array(((directory.isEmpty ? "." : directory) + "/" + name).utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw .system(operation: "create a temporary file in \(directory)", reason: String(cString: strerror(errno)))
        }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw .system(operation: "write \(temporary)", reason: reason)
            }
            written += count
        }
        // The original's mode and group (the owner is ours: `checkWritable` refused anything else).
        fchmod(descriptor, original.map { $0.st_mode & 0o7777 } ?? 0o644)
        if let original, original.st_uid != geteuid() || original.st_gid != getegid() {
            _ = fchown(descriptor, original.st_uid, original.st_gid)
        }
        if let source { ExtendedAttributes.copy(from: source, to: descriptor) }
        guard fsync(descriptor) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .system(operation: "flush \(temporary)", reason: reason)
        }
        return temporary
    }
}

/// Extended attributes (`user.*` tags, SELinux labels, …), copied from the file a save replaces to its replacement;
/// the calls are looked up at run time because the Swift overlay does not declare them. Best effort: an attribute
/// the file system or the user may not set is left out, as `cp --preserve=xattr` does.
enum ExtendedAttributes {
    private typealias List = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int
    private typealias Get = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
    private typealias Set = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32

    private static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        #if os(Linux)
            guard let pointer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
            return unsafeBitCast(pointer, to: type)
        #else
            return nil
        #endif
    }

    private static let list = symbol("flistxattr", as: List.self)
    private static let get = symbol("fgetxattr", as: Get.self)
    private static let set = symbol("fsetxattr", as: Set.self)

    /// Copies every attribute of `source` onto `destination`.
    static func copy(from source: Int32, to destination: Int32) {
        guard let list, let get, let set else { return }
        let length = list(source, nil, 0)
        guard length > 0 else { return }
        var names = [CChar](repeating: 0, count: length)
        let filled = list(source, &names, length)
        guard filled > 0 else { return }
        for name in names[..<filled].split(separator: 0) {
            let key = Array(name) + [0]
            key.withUnsafeBufferPointer { key in
                let size = get(source, key.baseAddress!, nil, 0)
                guard size >= 0 else { return }
                var value = [UInt8](repeating: 0, count: max(size, 1))
                let read = value.withUnsafeMutableBytes { get(source, key.baseAddress!, $0.baseAddress, size) }
                guard read >= 0 else { return }
                _ = value.withUnsafeBytes { set(destination, key.baseAddress!, $0.baseAddress, read, 0) }
            }
        }
    }
}
