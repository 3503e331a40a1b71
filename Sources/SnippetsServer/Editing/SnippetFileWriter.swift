import Foundation

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

    public var description: String {
        switch self {
        case .refused(let error): error.description
        case .missingDirectory(let path): "the directory \(path) does not exist; create it or set snippets.saveTo"
        case .system(let operation, let reason): "could not \(operation): \(reason)"
        case .keptChanging(let attempts): "the file changed on disk during each of \(attempts) attempts; nothing was written, try again"
        }
    }
}

/// Changes a file on disk without ever losing a byte someone else wrote.
///
/// **Invariant:** the file is replaced atomically (a temporary file in the same directory, flushed, then renamed
/// over it), and only if its bytes are still the ones the edit was computed from; otherwise the edit is computed
/// again from the fresh bytes. A missing file is created with `link`, which fails rather than overwrite a file
/// that appeared meanwhile. This is the only code in the server that writes to library files.
public struct SnippetFileWriter: Sendable {
    /// How many times an edit is recomputed when the file changes under it.
    public var attempts: Int
    /// Called between computing the edit and committing it: tests change the file here to race the writer.
    public var beforeCommit: (@Sendable (_ path: String, _ attempt: Int) -> Void)?

    public init(attempts: Int = 5, beforeCommit: (@Sendable (_ path: String, _ attempt: Int) -> Void)? = nil) {
        self.attempts = attempts
        self.beforeCommit = beforeCommit
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
            let before = try Self.contents(of: path)
            let updated: [UInt8]
            do {
                updated = try edit(before?.bytes)
            } catch {
                throw .refused(error)
            }
            let temporary = try Self.writeTemporary(updated, beside: path, mode: before?.mode ?? 0o644)
            beforeCommit?(path, attempt)
            // Compare right before committing: anything written since we read is kept by starting over.
            let now = try Self.contents(of: path)
            guard now?.bytes == before?.bytes else {
                unlink(temporary)
                continue
            }
            if before == nil {
                let linked = link(temporary, path)
                let code = errno
                unlink(temporary)
                if linked == 0 { return updated }
                if code == EEXIST { continue }
                throw .system(operation: "create \(path)", reason: String(cString: strerror(code)))
            }
            guard rename(temporary, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw .system(operation: "replace \(path)", reason: reason)
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

    /// The file's bytes and permission bits, or nil when it does not exist.
    private static func contents(of path: String) throws(SnippetFileWriteError) -> (bytes: [UInt8], mode: mode_t)? {
        let descriptor = open(path, O_RDONLY)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw .system(operation: "read \(path)", reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .system(operation: "read \(path)", reason: String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .system(operation: "read \(path)", reason: "not a regular file") }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system(operation: "read \(path)", reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return (bytes, info.st_mode & 0o7777)
    }

    /// Writes `bytes` to a new temporary file in `path`'s directory, flushed to disk; returns its path.
    private static func writeTemporary(_ bytes: [UInt8], beside path: String, mode: mode_t) throws(SnippetFileWriteError) -> String {
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
        fchmod(descriptor, mode)
        guard fsync(descriptor) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .system(operation: "flush \(temporary)", reason: reason)
        }
        return temporary
    }
}
