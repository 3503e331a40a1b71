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

    private static func reason(_ code: Int32) -> String {
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
                return .missing
            }
            return .unusable(reason: Self.reason(code))
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFREG: return .file(size: Int(info.st_size))
        default: return .unusable(reason: "not a regular file or directory")
        }
    }

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
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw Failure(path: path, reason: Self.reason(errno)) }
        defer { close(descriptor) }
        var info = stat()
        let expected = fstat(descriptor, &info) == 0 ? max(0, Int(info.st_size)) : 0
        // Read straight into the array, sized from `fstat`; keep reading past it in case the file grew.
        var bytes = [UInt8](repeating: 0, count: expected + 1)
        var filled = 0
        while true {
            if filled == bytes.count { bytes.append(contentsOf: repeatElement(0, count: max(4096, bytes.count))) }
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, reason: Self.reason(errno))
            }
            if count == 0 { break }
            filled += count
        }
        bytes.removeSubrange(filled...)
        return bytes
    }

    public func canonicalPath(of path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
