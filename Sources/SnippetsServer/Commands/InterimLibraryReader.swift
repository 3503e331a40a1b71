import Foundation
import SnippetsCore

// TEMPORARY: a minimal reader so `search` and `bench` work before the `formats` branch's LibraryLoader lands.
// It is replaced by `LibraryLoader(fileSystem:).load(paths:)` on merge; it reports no diagnostics and positions
// are line-only.

/// Reads VS Code JSON (a file, a folder, or a folder with `package.json`) and SnipMate `.snippets` files.
enum InterimLibraryReader {
    static func load(paths: [String]) -> SnippetLibrary {
        var files: [SnippetFile] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if !isDirectory.boolValue {
                files += read(file: path, languages: nil)
                continue
            }
            let package = (path as NSString).appendingPathComponent("package.json")
            if let data = FileManager.default.contents(atPath: package),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let contributes = object["contributes"] as? [String: Any],
                let entries = contributes["snippets"] as? [[String: Any]]
            {
                for entry in entries {
                    guard let relative = entry["path"] as? String else { continue }
                    let languages = (entry["language"] as? [String]) ?? (entry["language"] as? String).map { [$0] } ?? []
                    let file = ((path as NSString).appendingPathComponent(relative) as NSString).standardizingPath
                    files += read(file: file, languages: languages)
                }
                continue
            }
            let enumerator = FileManager.default.enumerator(atPath: path)
            var relativePaths: [String] = []
            while let relative = enumerator?.nextObject() as? String { relativePaths.append(relative) }
            for relative in relativePaths.sorted() {
                let file = (path as NSString).appendingPathComponent(relative)
                if file.hasSuffix(".snippets") {
                    var parts = relative.split(separator: "/")
                    if let last = parts.lastIndex(of: "snippets"), last < parts.count - 1 { parts.removeFirst(last + 1) }
                    let scope = parts.count > 1 ? String(parts[0]) : String(parts[0].dropLast(".snippets".count))
                    files += read(file: file, languages: [scope])
                } else if file.hasSuffix(".json") || file.hasSuffix(".code-snippets") {
                    files += read(file: file, languages: nil)
                }
            }
        }
        return SnippetLibrary(files: files, searchedPaths: paths)
    }

    private static func read(file: String, languages: [String]?) -> [SnippetFile] {
        guard let data = FileManager.default.contents(atPath: file) else { return [] }
        let uri = URL(fileURLWithPath: file).absoluteString
        if file.hasSuffix(".snippets") {
            return [readSnipMate(data, uri: uri, path: file, scope: languages?.first ?? "_")]
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [] }
        var snippets: [Snippet] = []
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for key in object.keys.sorted() {
            guard let entry = object[key] as? [String: Any] else { continue }
            let prefix = (entry["prefix"] as? [String]) ?? (entry["prefix"] as? String).map { [$0] } ?? []
            let body = (entry["body"] as? [String])?.joined(separator: "\n") ?? (entry["body"] as? String) ?? ""
            var scopes = languages ?? []
            if let scope = entry["scope"] as? String {
                scopes = scope.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
            }
            let line = 0
            snippets.append(
                Snippet(
                    id: SnippetID(fileURI: uri, key: key), title: key, triggers: prefix,
                    description: entry["description"] as? String, body: body, scopes: scopes,
                    location: location(uri, line), format: .vscode))
        }
        return [SnippetFile(uri: uri, path: file, format: .vscode, snippets: snippets)]
    }

    private static func readSnipMate(_ data: Data, uri: String, path: String, scope: String) -> SnippetFile {
        var file = SnippetFile(uri: uri, path: path, format: .snipmate)
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var priority = 0
        var index = 0
        var occurrences: [String: Int] = [:]
        while index < lines.count {
            let line = lines[index]
            index += 1
            if line.hasPrefix("priority ") { priority = Int(line.dropFirst(9).trimmingCharacters(in: .whitespaces)) ?? 0 }
            if line.hasPrefix("extends ") {
                file.extensions[scope, default: []] += line.dropFirst(8).split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
            }
            guard line.hasPrefix("snippet ") else { continue }
            let header = line.dropFirst(8)
            let trigger = String(header.prefix { $0 != " " && $0 != "\t" })
            var description = header.dropFirst(trigger.count).trimmingCharacters(in: .whitespaces)
            if description.hasPrefix("\"") && description.hasSuffix("\"") && description.count >= 2 {
                description = String(description.dropFirst().dropLast())
            }
            let startLine = index - 1
            var body: [Substring] = []
            while index < lines.count, lines[index].hasPrefix("\t") || lines[index].isEmpty {
                body.append(lines[index].dropFirst())
                index += 1
            }
            while body.last?.isEmpty == true { body.removeLast() }
            let key = trigger + " " + description
            occurrences[key, default: 0] += 1
            file.snippets.append(
                Snippet(
                    id: SnippetID(fileURI: uri, key: key + " \(occurrences[key]!)"),
                    title: description.isEmpty ? trigger : description, triggers: [trigger],
                    description: description.isEmpty ? nil : description, body: body.joined(separator: "\n"),
                    scopes: scope == "_" ? [] : [scope], priority: priority, location: location(uri, startLine),
                    format: .snipmate))
        }
        return file
    }

    private static func location(_ uri: String, _ line: Int) -> SourceLocation {
        let position = SourcePosition(line: line, asciiColumn: 0)
        return SourceLocation(uri: uri, range: SourceRange(start: position, end: position))
    }
}
