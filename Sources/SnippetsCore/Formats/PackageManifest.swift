/// A VS Code extension manifest (`package.json`) that lists snippet files under `contributes.snippets`.
struct PackageManifest {
    /// One snippet file the manifest names, with the languages it is for.
    struct Entry {
        /// The file's path, resolved against the manifest's directory.
        var path: String
        var languages: [String]
        /// Where the entry is in the manifest, for problems with it.
        var offset: Int
    }

    var entries: [Entry]

    /// Reads the manifest in `bytes` (the file at `manifestPath`). Nil when it has no `contributes.snippets`
    /// (an ordinary `package.json`); problems with the entries it does have go to `sink`.
    static func read(bytes: [UInt8], directory: String, sink: inout DiagnosticSink) -> PackageManifest? {
        guard case .success(let root) = JSONC.parse(bytes),
            let list = root.member("contributes")?.value.member("snippets")?.value
        else { return nil }
        guard case .array(let elements) = list.kind else {
            sink.add(
                .error, .wrongType, "'contributes.snippets' must be an array of {language, path} objects, not \(list.typeDescription)",
                at: list.range.lowerBound)
            return PackageManifest(entries: [])
        }
        var entries: [Entry] = []
        var indexByPath: [String: Int] = [:]
        for element in elements {
            guard element.members != nil else {
                sink.add(.error, .wrongType, "each 'contributes.snippets' entry must be an object, not \(element.typeDescription)", at: element.range.lowerBound)
                continue
            }
            guard let relative = element.member("path")?.value.stringValue, !relative.isEmpty else {
                sink.add(.error, .missingPath, "this 'contributes.snippets' entry has no 'path' string", at: element.range.lowerBound)
                continue
            }
            var languages: [String] = []
            if let language = element.member("language")?.value {
                switch language.kind {
                case .string(let name): languages = [name]
                case .array(let names): languages = names.compactMap(\.stringValue)
                default:
                    sink.add(.warning, .wrongType, "'language' must be a string or an array of strings, not \(language.typeDescription)", at: language.range.lowerBound)
                }
            }
            let path = LibraryPath.join(directory, relative)
            if let index = indexByPath[path] {
                // Listed again for more languages: one file, read once, with every language it was listed for.
                for name in languages where !entries[index].languages.contains(name) {
                    entries[index].languages.append(name)
                }
            } else {
                indexByPath[path] = entries.count
                entries.append(Entry(path: path, languages: languages, offset: element.range.lowerBound))
            }
        }
        return PackageManifest(entries: entries)
    }
}

/// Lexical path helpers (no file system access): joining, normalising `.`/`..`, names and extensions, and the
/// `file://` URI of a path.
public enum LibraryPath {
    /// `relative` resolved against `directory` (an absolute `relative` is returned normalised as is).
    public static func join(_ directory: String, _ relative: String) -> String {
        relative.hasPrefix("/") ? normalize(relative) : normalize(directory + "/" + relative)
    }

    /// The path with `.` and empty components removed and `..` applied where it can be.
    public static func normalize(_ path: String) -> String {
        let isAbsolute = path.hasPrefix("/")
        var components: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            if component == "." { continue }
            if component == "..", let last = components.last, last != ".." {
                components.removeLast()
                continue
            }
            if component == "..", isAbsolute { continue }
            components.append(component)
        }
        let joined = components.joined(separator: "/")
        if isAbsolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    /// The last component of `path`.
    public static func name(_ path: String) -> String {
        String(path.split(separator: "/").last ?? Substring(path))
    }

    /// The directory holding `path`.
    public static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
