/// What the loader needs from a file system. The core declares it and never touches a disk itself:
/// the server target implements it over the real file system, tests over an in-memory tree.
public protocol LibraryFileSystem: Sendable {
    /// What is at `path`, following symbolic links.
    func item(at path: String) -> FileSystemItem
    /// The names (not paths) of the entries of the directory at `path`.
    func contentsOfDirectory(at path: String) throws -> [String]
    /// The bytes of the file at `path`.
    func contents(of path: String) throws -> [UInt8]
    /// The bytes of the regular file at `path`, refusing (`FileTooLarge`) a file over `maximumSize` bytes. The real
    /// file system checks type and size on the descriptor it reads from and never reads more than the limit, so a
    /// file swapped for a FIFO or `/dev/zero` after `item(at:)` neither blocks nor fills memory.
    func contents(of path: String, maximumSize: Int) throws -> [UInt8]
    /// The path with symbolic links and `.`/`..` resolved, used to detect symlink loops and files seen twice.
    func canonicalPath(of path: String) -> String?
    /// What identifies the file or directory at `path` however it is reached (the real file system: device and
    /// inode, one `stat`), used to detect symlink loops and files seen twice; nil when it cannot be found. Cheaper
    /// than `canonicalPath` in deep trees, where resolving every directory's path costs depth² each.
    func identity(of path: String) -> String?
}

/// What a path names.
public enum FileSystemItem: Hashable, Sendable {
    case missing
    case directory
    case file(size: Int)
    /// Something that exists but cannot be used: a dangling or looping symbolic link, a device, no permission.
    case unusable(reason: String)
}

/// A file over the size limit, found while reading it (its size may have changed since `item(at:)`).
public struct FileTooLarge: Error, Hashable, Sendable {
    /// The file's size in bytes, as far as it is known (at least the limit plus one).
    public var size: Int

    public init(size: Int) {
        self.size = size
    }
}

extension LibraryFileSystem {
    /// The canonical path: right for in-memory trees.
    public func identity(of path: String) -> String? { canonicalPath(of: path) }

    /// Reads the whole file, then checks its size: right for in-memory trees, whose files cannot block or grow.
    public func contents(of path: String, maximumSize: Int) throws -> [UInt8] {
        let bytes = try contents(of: path)
        if bytes.count > maximumSize { throw FileTooLarge(size: bytes.count) }
        return bytes
    }
}
