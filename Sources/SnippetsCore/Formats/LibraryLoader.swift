// API surface agreed between targets; the formats work fills in the implementation.

/// Finds and reads snippet files under the library paths, through a `LibraryFileSystem`.
public struct LibraryLoader: Sendable {
    public let fileSystem: any LibraryFileSystem

    public init(fileSystem: any LibraryFileSystem) {
        self.fileSystem = fileSystem
    }

    /// Loads every snippet under `paths` (files or directories). Never throws: every problem becomes a diagnostic,
    /// and a missing path is a loader diagnostic that names it.
    public func load(paths: [String]) -> SnippetLibrary {
        fatalError("LibraryLoader.load is not implemented yet")
    }
}
