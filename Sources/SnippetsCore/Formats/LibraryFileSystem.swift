/// What the loader needs from a file system. The core declares it and never touches a disk itself:
/// the server target implements it over the real file system, tests over an in-memory tree.
public protocol LibraryFileSystem: Sendable {
    /// What is at `path`, following symbolic links.
    func item(at path: String) -> FileSystemItem
    /// The names (not paths) of the entries of the directory at `path`.
    func contentsOfDirectory(at path: String) throws -> [String]
    /// The bytes of the file at `path`.
    func contents(of path: String) throws -> [UInt8]
    /// The path with symbolic links and `.`/`..` resolved, used to detect symlink loops and files seen twice.
    func canonicalPath(of path: String) -> String?
}

/// What a path names.
public enum FileSystemItem: Hashable, Sendable {
    case missing
    case directory
    case file(size: Int)
    /// Something that exists but cannot be used: a dangling or looping symbolic link, a device, no permission.
    case unusable(reason: String)
}
