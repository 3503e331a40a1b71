import SnippetsCore

/// What a load found wrong, sorted out off the request loop (a large library may have a hundred thousand
/// conflict warnings): the problems by file, the files with errors, and the lines to log.
struct LoadProblems: Sendable {
    /// How many library problems one load writes to stderr.
    static let loggedLimit = 20

    /// The problems by file key (`DocumentURI.comparableKey`).
    var byFile: [String: [LibraryDiagnostic]] = [:]
    /// The paths of the files with errors, in library order.
    var brokenFilePaths: [String] = []
    var logLines: [String] = []
    var count = 0

    init(loaded: SnippetLibrary, learned: LearnedWords) {
        // A file's key is found once, not once per problem: `comparableKey` reads the disk.
        var keys: [String: String] = [:]
        let all = loaded.diagnostics
        for diagnostic in all {
            let key = keys[diagnostic.uri] ?? DocumentURI(diagnostic.uri).comparableKey
            keys[diagnostic.uri] = key
            byFile[key, default: []].append(diagnostic)
            count += 1
        }
        brokenFilePaths = loaded.files.filter(\.hasErrors).map(\.path)
        count += learned.diagnostics.count
        let logged = (all.prefix(Self.loggedLimit) + learned.diagnostics).prefix(Self.loggedLimit)
        logLines = logged.map { problem in
            let path = DocumentURI(problem.uri).displayPath
            return "\(path):\(problem.position.line + 1):\(problem.position.utf8Column + 1): \(problem.severity.rawValue): \(problem.message) [\(problem.code)]"
        }
    }

    /// The line the client is sent after a load (`window/logMessage`): what is in service, how many files have
    /// errors, and the layers in precedence order.
    func summary(of library: SnippetLibrary) -> String {
        let broken = brokenFilePaths.count
        var summary = "loaded \(library.snippets.count) snippets from \(library.files.count) files"
        if broken > 0 {
            summary += "; \(broken) \(broken == 1 ? "file has" : "files have") errors (the last good snippets of each stay in service)"
        }
        if library.layers.count > 1 || library.layers.contains(where: \.isNamed) {
            summary += "; layers in precedence order: " + library.layers.map { layer in
                var roles: [String] = []
                if !layer.isNamed && layer.name != LibraryLayer.projectLayerName { roles.append("named after its folder") }
                if layer.isReadOnly { roles.append("read-only") }
                if let revision = library.layerRevisions[layer.name] { roles.append(revision.text) }
                return roles.isEmpty ? layer.name : "\(layer.name) (\(roles.joined(separator: ", ")))"
            }.joined(separator: ", ")
        }
        return summary
    }
}
