import Foundation
import SnippetsCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opening and reading a file without ever blocking on what is there.
///
/// **Invariant:** every file the server reads is opened with `O_NONBLOCK` (a FIFO opens at once instead of waiting
/// for a writer), its type and size are checked with `fstat` on the descriptor it is read from (not on the path,
/// which may have been swapped since), only regular files are read, and never more than the size limit plus one
/// byte (so `/dev/zero` or a file growing while read cannot fill memory).
enum BoundedFileRead {
    /// An open regular file and what `fstat` said about it.
    struct OpenFile {
        let descriptor: Int32
        let info: stat
    }

    /// Opens `path` for reading without blocking. `followLinks: false` refuses a symbolic link at the last component
    /// (`O_NOFOLLOW`). Throws for anything that is not a regular file, naming what it is.
    static func openRegularFile(_ path: String, followLinks: Bool = true) throws(DiskFileSystem.Failure) -> OpenFile {
        var flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC
        if !followLinks { flags |= O_NOFOLLOW }
        let descriptor = open(path, flags)
        guard descriptor >= 0 else { throw DiskFileSystem.Failure(path: path, reason: DiskFileSystem.reason(errno)) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let reason = DiskFileSystem.reason(errno)
            close(descriptor)
            throw DiskFileSystem.Failure(path: path, reason: reason)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw DiskFileSystem.Failure(path: path, reason: "it is \(kind(ofMode: info.st_mode)), not a regular file")
        }
        return OpenFile(descriptor: descriptor, info: info)
    }

    /// Reads `file` to its end, refusing (`FileTooLarge`) once more than `maximumSize` bytes arrive.
    static func readAll(_ file: OpenFile, path: String, maximumSize: Int) throws -> [UInt8] {
        let expected = max(0, Int(file.info.st_size))
        if expected > maximumSize { throw FileTooLarge(size: expected) }
        // Sized from `fstat`, one byte over so a file that grew shows; never more than the limit plus one.
        var bytes = [UInt8](repeating: 0, count: min(expected, maximumSize) + 1)
        var filled = 0
        while true {
            if filled == bytes.count {
                guard bytes.count <= maximumSize else { throw FileTooLarge(size: max(expected, filled)) }
                bytes.append(contentsOf: repeatElement(0, count: min(max(4096, bytes.count), maximumSize + 1 - bytes.count)))
            }
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(file.descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw DiskFileSystem.Failure(path: path, reason: DiskFileSystem.reason(errno))
            }
            if count == 0 { break }
            filled += count
        }
        if filled > maximumSize { throw FileTooLarge(size: filled) }
        bytes.removeSubrange(filled...)
        return bytes
    }

    /// Opens, checks and reads the regular file at `path` (at most `maximumSize` bytes).
    static func contents(of path: String, maximumSize: Int, followLinks: Bool = true) throws -> [UInt8] {
        let file = try openRegularFile(path, followLinks: followLinks)
        defer { close(file.descriptor) }
        return try readAll(file, path: path, maximumSize: maximumSize)
    }

    /// What a file type is, in words ("a FIFO (named pipe)", "a character device").
    static func kind(ofMode mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a directory"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }
}
