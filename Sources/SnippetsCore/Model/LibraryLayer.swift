/// One library path with a name and a role: a layer of the library. Layers are listed in precedence order: the
/// first layer that defines a trigger wins for that trigger.
public struct LibraryLayer: Hashable, Sendable {
    /// The name shown on completion items, search results and citations (`personal`, `team`, ...).
    public var name: String
    /// The file or directory, absolute and normalised once resolved.
    public var path: String
    /// A read-only layer (a team checkout) is never written: saving into it is refused with a message naming it.
    public var isReadOnly: Bool
    /// Whether the user gave the name (`NAME=PATH`, `{name}`); false when it was made from the folder's name.
    public var isNamed: Bool

    /// A layer; without `name`, it is named after the path's last component (see `defaultName(for:)`).
    public init(path: String, name: String? = nil, isReadOnly: Bool = false) {
        self.path = path
        let given = name.flatMap { $0.isEmpty ? nil : $0 }
        self.name = given ?? Self.defaultName(for: path)
        self.isNamed = given != nil
        self.isReadOnly = isReadOnly
    }

    /// The name given to the layer of project snippets (each workspace folder's `.vscode/*.code-snippets`).
    public static let projectLayerName = "project"

    /// The name of an unnamed layer: its folder's name (`~/.config/snippets` → `snippets`), a file's name without
    /// its extension; `library` when the path has no usable last component.
    public static func defaultName(for path: String) -> String {
        var name = LibraryPath.name(LibraryPath.normalize(path))
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = String(name[..<dot]) }
        return isValidName(name) ? name : "library"
    }

    /// Whether `name` can name a layer: 1 to 64 letters, digits, `_`, `-` or `.`, not starting with `.`.
    public static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 64, name.first != "." else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-" || scalar == "."
        }
    }

    /// Splits `NAME=PATH` into its name and path; a spec whose part before the first `=` is not a valid name (a
    /// path such as `/a=b` or `./x=y`) is a plain path with no name.
    public static func splitSpec(_ spec: String) -> (name: String?, path: String) {
        guard let equals = spec.firstIndex(of: "=") else { return (nil, spec) }
        let name = String(spec[..<equals])
        let path = String(spec[spec.index(after: equals)...])
        guard isValidName(name), !path.isEmpty else { return (nil, spec) }
        return (name, path)
    }

    /// Whether `path` (absolute) is this layer's path or inside it.
    public func contains(path other: String) -> Bool {
        let base = LibraryPath.normalize(path)
        let candidate = LibraryPath.normalize(other)
        if candidate == base { return true }
        return candidate.hasPrefix(base.hasSuffix("/") ? base : base + "/")
    }

    /// `layers` with names made unique (a later duplicate gets `-2`, `-3`, ...), and a note for each renamed one.
    public static func uniquelyNamed(_ layers: [LibraryLayer]) -> (layers: [LibraryLayer], notes: [(path: String, message: String)]) {
        var taken: Set<String> = [projectLayerName]
        var notes: [(path: String, message: String)] = []
        let renamed = layers.map { layer -> LibraryLayer in
            var layer = layer
            if !taken.insert(layer.name).inserted {
                var number = 2
                while taken.contains("\(layer.name)-\(number)") { number += 1 }
                notes.append((layer.path, "two library layers are named '\(layer.name)'; the one at \(layer.path) is called '\(layer.name)-\(number)'"))
                layer.name = "\(layer.name)-\(number)"
                taken.insert(layer.name)
            }
            return layer
        }
        return (renamed, notes)
    }
}

/// Which version of a layer was loaded: the commit at `HEAD` when the layer is inside a git work tree (and whether
/// its snippet files differ from that commit), else a hash of the layer's snippet files.
public struct LayerRevision: Hashable, Sendable {
    /// How the revision was found.
    public enum Kind: String, Hashable, Sendable {
        /// `commit` is the commit at `HEAD` of the git work tree holding the layer.
        case git
        /// `value` is a hash of the layer's snippet files (no git work tree, or its state could not be read).
        case files
    }

    public var kind: Kind
    /// For `git`: the commit id (hex), or nil for a repository with no commit yet.
    public var commit: String?
    /// For `git`: whether the work tree's snippet files under the layer differ from the commit (edited, added,
    /// deleted); nil when that could not be decided.
    public var hasUncommittedChanges: Bool?
    /// For `files`: the hash of the layer's snippet files (paths and bytes), 16 hex digits.
    public var filesHash: String?

    public init(kind: Kind, commit: String? = nil, hasUncommittedChanges: Bool? = nil, filesHash: String? = nil) {
        self.kind = kind
        self.commit = commit
        self.hasUncommittedChanges = hasUncommittedChanges
        self.filesHash = filesHash
    }

    /// The one-string form on the wire and in output: `git:<commit>`, `git:<commit>+modified` (uncommitted changes
    /// to snippet files), `git:none` (no commit yet), `files:<hash>`.
    public var text: String {
        switch kind {
        case .files:
            return "files:" + (filesHash ?? "unknown")
        case .git:
            var text = "git:" + (commit ?? "none")
            if hasUncommittedChanges == true { text += "+modified" }
            return text
        }
    }
}

extension LibraryLayer: ExpressibleByStringLiteral {
    /// An unnamed, writable layer at a path written as a literal (tests and defaults).
    public init(stringLiteral path: String) {
        self.init(path: path)
    }
}
