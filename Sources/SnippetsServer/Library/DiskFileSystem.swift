import Foundation
import SnippetsCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real file system, through `stat`/`open`/`read`/`realpath`: symbolic links are followed, a link loop
/// (`ELOOP`) or a dangling link is `unusable`, and a file without read permission fails to read with a reason.
public struct DiskFileSystem: LibraryFileSystem {
    /// The file system of this machine.
    public init() {}

    /// A failed system call, with the path and the system's reason.
    public struct Failure: Error, CustomStringConvertible {
        /// The path the call was about.
        public var path: String
        /// The system's reason, in words ("permission denied").
        public var reason: String
        /// The reason, as messages show it.
        public var description: String { reason }
    }

    static func reason(_ code: Int32) -> String {
        switch code {
        case ELOOP: return "a symbolic link loop"
        case EACCES, EPERM: return "permission denied"
        case ENOENT: return "no such file or directory"
        default: return String(cString: strerror(code))
        }
    }

    public func item(at path: String) -> FileSystemItem {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT {
                // A dangling symbolic link exists even though its target does not.
                var linkInfo = stat()
                if lstat(path, &linkInfo) == 0 { return .unusable(reason: "a symbolic link to nothing") }
                if path.unicodeScalars.contains("\u{FFFD}") { return .unusable(reason: Self.invalidNameReason) }
                return .missing
            }
            return .unusable(reason: Self.reason(code))
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFREG: return .file(size: Int(info.st_size))
        default: return .unusable(reason: "it is \(BoundedFileRead.kind(ofMode: info.st_mode)), not a regular file or directory")
        }
    }

    /// Why an entry whose name is not UTF-8 cannot be read (paths here are Swift strings, which are UTF-8).
    static let invalidNameReason = "its name is not valid UTF-8 (shown with \u{FFFD} for the bytes that are not), so it cannot be read; rename it"

    public func contentsOfDirectory(at path: String) throws -> [String] {
        guard let directory = opendir(path) else { throw Failure(path: path, reason: Self.reason(errno)) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    public func contents(of path: String) throws -> [UInt8] {
        try contents(of: path, maximumSize: LibraryLoader.defaultMaximumFileSize)
    }

    /// Opened without blocking, type and size checked on the descriptor, at most `maximumSize` bytes read
    /// (see `BoundedFileRead`).
    public func contents(of path: String, maximumSize: Int) throws -> [UInt8] {
        try BoundedFileRead.contents(of: path, maximumSize: maximumSize)
    }

    /// Device and inode, from one `stat` (symbolic links followed).
    public func identity(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return "\(info.st_dev):\(info.st_ino)"
    }

    public func canonicalPath(of path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
