import Dispatch

/// The snippets read from one file, with the problems found in it.
public struct SnippetFile: Hashable, Sendable {
    /// The file's `file://` URI.
    public var uri: String
    /// The file's path as the loader saw it.
    public var path: String
    public var format: SnippetFormat
    public var snippets: [Snippet]
    public var diagnostics: [LibraryDiagnostic]
    /// SnipMate `extends` lines: the scope this file belongs to, mapped to the scopes it pulls in.
    public var extensions: [String: [String]]
    /// How the loader read this file (format, scopes decided by its name or a manifest), so that it can read the
    /// same file again on its own with `LibraryLoader.loadFile(at:context:)`. Nil for files built by hand.
    public var context: SnippetFileContext? = nil
    /// The name of the library layer the file belongs to; empty for files built by hand.
    public var layer: String = ""
    /// FNV-1a 64 of the file's bytes as read (0 when it could not be read), for the revision of a layer outside git.
    public var contentHash: UInt64 = 0

    public init(
        uri: String,
        path: String,
        format: SnippetFormat,
        snippets: [Snippet] = [],
        diagnostics: [LibraryDiagnostic] = [],
        extensions: [String: [String]] = [:]
    ) {
        self.uri = uri
        self.path = path
        self.format = format
        self.snippets = snippets
        self.diagnostics = diagnostics
        self.extensions = extensions
    }

    /// Whether any problem in this file is an error (as opposed to a warning or note).
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

/// Every snippet the user has, as loaded from their library paths. A value: reloads build a new one.
public struct SnippetLibrary: Sendable {
    /// The files that were read, in a deterministic order (sorted by path within each library root).
    public private(set) var files: [SnippetFile]
    /// All snippets of all files, in file order.
    public private(set) var snippets: [Snippet]
    /// Problems that belong to no single snippet file (a missing library path, a symlink loop, ...).
    public private(set) var loaderDiagnostics: [LibraryDiagnostic]
    /// The library paths that were searched, as given; `emptyLibrary` messages name them.
    public private(set) var searchedPaths: [String]

    /// The layers, in precedence order (the first that defines a trigger wins for it); project snippets, when
    /// any, are the last layer.
    public var layers: [LibraryLayer] = []
    /// The revision of each layer by name, when known (the server and the commands read it from disk after loading).
    public var layerRevisions: [String: LayerRevision] = [:]

    private var indexByID: [SnippetID: Int]
    private var extensions: [String: [String]]

    /// This library followed by `other`'s files (project snippets loaded after the user's own library), leaving out
    /// any file this one already holds; searched paths stay this library's. The layers are this library's, then
    /// `other`'s that it does not name (the project layer), so precedence and revisions survive the addition.
    public func adding(_ other: SnippetLibrary) -> SnippetLibrary {
        let known = Set(files.map(\.uri))
        var combined = SnippetLibrary(
            files: files + other.files.filter { !known.contains($0.uri) },
            loaderDiagnostics: loaderDiagnostics + other.loaderDiagnostics, searchedPaths: searchedPaths)
        let names = Set(layers.map(\.name))
        combined.layers = layers + other.layers.filter { !names.contains($0.name) }
        combined.layerRevisions = other.layerRevisions.merging(layerRevisions) { _, own in own }
        return combined
    }

    public init(files: [SnippetFile], loaderDiagnostics: [LibraryDiagnostic] = [], searchedPaths: [String] = []) {
        self.files = files
        self.loaderDiagnostics = loaderDiagnostics
        self.searchedPaths = searchedPaths
        (self.snippets, self.indexByID) = Self.flattened(files)
        var extensions: [String: [String]] = [:]
        for file in files {
            for (scope, parents) in file.extensions {
                extensions[scope, default: []].append(contentsOf: parents)
            }
        }
        self.extensions = extensions
    }

    /// Every file's snippets in file order, and the position of each identifier's first snippet. A large library
    /// (this runs on every load, before the first answer) is copied in parallel chunks of files while the
    /// identifiers are indexed beside them.
    private static func flattened(_ files: [SnippetFile]) -> ([Snippet], [SnippetID: Int]) {
        var fileStarts: [Int] = []
        fileStarts.reserveCapacity(files.count + 1)
        var runningTotal = 0
        for file in files {
            fileStarts.append(runningTotal)
            runningTotal += file.snippets.count
        }
        let starts = fileStarts
        let total = runningTotal
        @Sendable func identifiers() -> [SnippetID: Int] {
            var indexByID: [SnippetID: Int] = [:]
            indexByID.reserveCapacity(total)
            for (fileIndex, file) in files.enumerated() {
                for offset in file.snippets.indices where indexByID[file.snippets[offset].id] == nil {
                    indexByID[file.snippets[offset].id] = starts[fileIndex] + offset
                }
            }
            return indexByID
        }
        guard total >= 16_384, files.count > 1 else { return (files.flatMap(\.snippets), identifiers()) }
        let chunkCount = min(files.count, 8)
        nonisolated(unsafe) var indexByID: [SnippetID: Int] = [:]
        let snippets = [Snippet](unsafeUninitializedCapacity: total) { buffer, count in
            // Each chunk initializes only its own files' slots; every slot belongs to exactly one file.
            nonisolated(unsafe) let slots = buffer
            DispatchQueue.concurrentPerform(iterations: chunkCount + 1) { chunk in
                guard chunk < chunkCount else {
                    indexByID = identifiers()
                    return
                }
                for fileIndex in stride(from: chunk, to: files.count, by: chunkCount) {
                    let start = starts[fileIndex]
                    files[fileIndex].snippets.withUnsafeBufferPointer { source in
                        guard let from = source.baseAddress, let to = slots.baseAddress else { return }
                        (to + start).initialize(from: from, count: source.count)
                    }
                }
            }
            count = total
        }
        return (snippets, indexByID)
    }

    /// Scope names that mean "every language" in the formats people use.
    public static let universalScopes: Set<String> = ["all", "global"]

    /// The empty library.
    public static let empty = SnippetLibrary(files: [])

    /// The snippet with this identifier, if the library still has it.
    public func snippet(withID id: SnippetID) -> Snippet? {
        indexByID[id].map { snippets[$0] }
    }

    /// The position of the snippet with this identifier in `snippets`.
    public func index(of id: SnippetID) -> Int? {
        indexByID[id]
    }

    /// Every problem found: loader-level ones first, then each file's.
    public var diagnostics: [LibraryDiagnostic] {
        loaderDiagnostics + files.flatMap(\.diagnostics)
    }

    /// The scopes whose snippets apply in a document of `language`: the language itself plus everything it
    /// `extends`, transitively (SnipMate's `cpp` extends `c`, ...). Global snippets apply on top of these.
    ///
    /// The universal scopes (`SnippetLibrary.universalScopes`: `all`, as UltiSnips, LuaSnip and vim-snippets' `all.snippets`
    /// use it, and friendly-snippets' `global`) apply in every language too, with whatever they extend.
    public func scopes(forLanguage language: String) -> Set<String> {
        Self.scopes(forLanguage: language, extensions: extensions)
    }

    /// `scopes(forLanguage:)` under these `extends` (a file's scope mapped to the scopes it pulls in), for a load
    /// that has read only some files so far.
    static func scopes(forLanguage language: String, extensions: [String: [String]]) -> Set<String> {
        var result: Set<String> = universalScopes.union([language])
        var pending = Array(result)
        while let scope = pending.popLast() {
            for parent in extensions[scope] ?? [] where result.insert(parent).inserted {
                pending.append(parent)
            }
        }
        return result
    }

    /// Whether `snippet` applies in a document of `language` (nil: any language).
    public func applies(_ snippet: Snippet, toLanguage language: String?) -> Bool {
        guard let language, !snippet.isGlobal else { return true }
        let scopes = scopes(forLanguage: language)
        return snippet.scopes.contains { scopes.contains($0) }
    }

    /// This library with the file at `file.uri` replaced (or added), everything else unchanged.
    public func replacing(_ file: SnippetFile) -> SnippetLibrary {
        var files = files
        if let index = files.firstIndex(where: { $0.uri == file.uri }) {
            files[index] = file
        } else {
            files.append(file)
        }
        return withSameLayers(SnippetLibrary(files: files, loaderDiagnostics: loaderDiagnostics, searchedPaths: searchedPaths))
    }

    /// This library with `files`' diagnostics replaced by `diagnostics` (by file URI); snippets unchanged.
    public func withFileDiagnostics(_ diagnostics: [String: [LibraryDiagnostic]]) -> SnippetLibrary {
        var copy = self
        for index in copy.files.indices {
            if let added = diagnostics[copy.files[index].uri] { copy.files[index].diagnostics = added }
        }
        return copy
    }

    private func withSameLayers(_ library: SnippetLibrary) -> SnippetLibrary {
        var library = library
        library.layers = layers
        library.layerRevisions = layerRevisions
        return library
    }

    /// The layer named `name`.
    public func layer(named name: String) -> LibraryLayer? {
        layers.first { $0.name == name }
    }

    /// The precedence of the layer named `name`: 0 for the first layer; layers not listed come last.
    public func layerRank(of name: String) -> Int {
        layers.firstIndex { $0.name == name } ?? layers.count
    }

    /// `layerRank(of:)` of each snippet, in `snippets` order (each layer's name looked up once).
    public func snippetLayerRanks() -> [Int] {
        var rankByLayer: [String: Int] = [:]
        return snippets.indices.map { number in
            let layer = snippets[number].layer
            if let rank = rankByLayer[layer] { return rank }
            let rank = layerRank(of: layer)
            rankByLayer[layer] = rank
            return rank
        }
    }

    /// The read-only layer that `path` (absolute) is in, if any: what refuses a write there. A path inside a
    /// read-only layer is refused even when a writable layer nested in it also holds it.
    public func readOnlyLayer(containing path: String) -> LibraryLayer? {
        Self.readOnlyLayer(containing: path, in: layers)
    }

    /// The first read-only layer among `layers` that `path` is in.
    public static func readOnlyLayer(containing path: String, in layers: [LibraryLayer]) -> LibraryLayer? {
        layers.first { $0.isReadOnly && $0.contains(path: path) }
    }
}
