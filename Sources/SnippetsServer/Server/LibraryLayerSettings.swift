import SnippetsCore

/// Reads the `libraries` setting: an array whose entries are a path, `NAME=PATH`, or `{path, name, readOnly}`.
/// An invalid entry is left out with a warning naming it (`snippets.libraries[2].readOnly`); when no entry is
/// usable the default library paths are used.
enum LibraryLayerSettings {
    static func layers(from value: JSONValue) -> (layers: [LibraryLayer]?, problems: [ServerSettings.Problem]) {
        if value == .null { return (nil, []) }
        guard let array = value.arrayValue else {
            return (nil, [problem("snippets.libraries", "must be an array of paths or {path, name, readOnly} objects; using the default library paths")])
        }
        var layers: [LibraryLayer] = []
        var problems: [ServerSettings.Problem] = []
        for (index, entry) in array.enumerated() {
            let name = "snippets.libraries[\(index)]"
            if let text = entry.stringValue {
                guard !text.isEmpty else {
                    problems.append(problem(name, "is an empty path; it is left out"))
                    continue
                }
                let (layerName, path) = LibraryLayer.splitSpec(text)
                layers.append(LibraryLayer(path: path, name: layerName))
            } else if let members = entry.objectValue {
                guard let path = members["path"]?.stringValue, !path.isEmpty else {
                    problems.append(problem("\(name).path", "must be a non-empty path; this library is left out"))
                    continue
                }
                var layerName: String?
                if let given = members["name"], given != .null {
                    if let text = given.stringValue, LibraryLayer.isValidName(text) {
                        layerName = text
                    } else {
                        problems.append(problem(
                            "\(name).name",
                            "must be 1 to 64 letters, digits, '_', '-' or '.'; naming the library '\(LibraryLayer.defaultName(for: path))' after its folder"))
                    }
                }
                var readOnly = false
                if let given = members["readOnly"], given != .null {
                    if case .bool(let flag) = given {
                        readOnly = flag
                    } else {
                        // Safer to refuse writes than to allow them on a typo.
                        readOnly = true
                        problems.append(problem("\(name).readOnly", "must be true or false; treating the library as read-only"))
                    }
                }
                for key in members.keys.sorted() where !["path", "name", "readOnly"].contains(key) {
                    problems.append(problem("\(name).\(key)", "is not a library option (path, name, readOnly); it is ignored"))
                }
                layers.append(LibraryLayer(path: path, name: layerName, isReadOnly: readOnly))
            } else {
                problems.append(problem(name, "must be a path or a {path, name, readOnly} object; it is left out"))
            }
        }
        if layers.isEmpty && !array.isEmpty {
            // One warning: every entry was unusable.
            return (nil, [problem("snippets.libraries", "has no usable entry (each must be a path, NAME=PATH or a {path, name, readOnly} object); using the default library paths")])
        }
        return (layers, problems)
    }

    private static func problem(_ name: String, _ message: String) -> ServerSettings.Problem {
        ServerSettings.Problem(name: name.replacingOccurrences(of: "snippets.", with: ""), message: "setting '\(name)' \(message)")
    }
}
