/// A `LibraryFileSystem` over a dictionary, for tests and for editors' unsaved buffers: paths are absolute and
/// normalised; directories exist implicitly above every file; symbolic links are written as `links`.
public struct InMemoryFileSystem: LibraryFileSystem {
    /// File contents by absolute path.
    public var files: [String: [UInt8]]
    /// Symbolic links: absolute path → target (absolute, or relative to the link's directory).
    public var links: [String: String]
    /// Paths that exist but cannot be read (as if permission were denied).
    public var unreadable: Set<String>

    /// A tree holding `files` (path → text), `links` (path → target) and `unreadable` paths.
    public init(files: [String: String] = [:], links: [String: String] = [:], unreadable: Set<String> = []) {
        self.files = files.mapValues { Array($0.utf8) }
        self.links = links
        self.unreadable = unreadable
    }

    /// The failure `contents(of:)` throws.
    public struct Failure: Error, CustomStringConvertible {
        /// Why the read failed.
        public var description: String
    }

    /// `path` with every symbolic link on the way resolved; nil for a loop (more than 40 links, as Linux allows).
    private func resolve(_ path: String) -> String? {
        var components = LibraryPath.normalize(path).split(separator: "/").map(String.init)
        var resolved = ""
        var hops = 0
        var index = 0
        while index < components.count {
            let candidate = resolved + "/" + components[index]
            if let target = links[candidate] {
                hops += 1
                guard hops <= 40 else { return nil }
                let absolute = LibraryPath.join(resolved.isEmpty ? "/" : resolved, target)
                components = absolute.split(separator: "/").map(String.init) + components[(index + 1)...]
                resolved = ""
                index = 0
                continue
            }
            resolved = candidate
            index += 1
        }
        return resolved.isEmpty ? "/" : resolved
    }

    public func item(at path: String) -> FileSystemItem {
        guard let resolved = resolve(path) else { return .unusable(reason: "a symbolic link loop") }
        if let bytes = files[resolved] { return .file(size: bytes.count) }
        let prefix = resolved == "/" ? "/" : resolved + "/"
        if files.keys.contains(where: { $0.hasPrefix(prefix) }) || links.keys.contains(where: { $0.hasPrefix(prefix) }) {
            return .directory
        }
        return .missing
    }

    public func contentsOfDirectory(at path: String) throws -> [String] {
        guard let resolved = resolve(path) else { throw Failure(description: "a symbolic link loop") }
        let prefix = resolved == "/" ? "/" : resolved + "/"
        var names: Set<String> = []
        for key in Array(files.keys) + Array(links.keys) where key.hasPrefix(prefix) {
            if let name = key.dropFirst(prefix.count).split(separator: "/").first { names.insert(String(name)) }
        }
        return names.sorted()
    }

    public func contents(of path: String) throws -> [UInt8] {
        guard let resolved = resolve(path) else { throw Failure(description: "a symbolic link loop") }
        if unreadable.contains(resolved) { throw Failure(description: "permission denied") }
        guard let bytes = files[resolved] else { throw Failure(description: "no such file") }
        return bytes
    }

    public func canonicalPath(of path: String) -> String? {
        resolve(path)
    }
}
