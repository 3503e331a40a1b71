import Foundation
import SnippetsCore

/// What the user is told about the library's problems: `textDocument/publishDiagnostics` for open snippet files
/// and for library paths, and the warnings about problems they cannot see. Owned by `LanguageServer` and used only
/// on it, in the order messages are applied (not `Sendable`).
///
/// **Invariant:** a file's diagnostics are published when it is opened with problems, again after each load that
/// changes them, and cleared once (an empty list) when they are gone; a file without problems that never had any
/// gets nothing. **Invariant:** a missing or unusable library path is shown (`window/showMessage`) once per path
/// and message, and carries a diagnostic for as long as it lasts; the broken files that are not open are named once
/// per set of broken files (`announceBrokenFiles`): a reload that finds the same says nothing.
final class DiagnosticsPublisher {
    private let connection: ClientConnection
    /// The problems of the load in service, by file key (`DocumentURI.comparableKey`).
    private var problemsByFile: [String: [LibraryDiagnostic]] = [:]
    /// The paths of the snippet files with errors in the load in service, in library order.
    private var brokenFilePaths: [String] = []
    /// File keys whose last published list was not empty.
    private var published: Set<String> = []
    /// Library path problems already shown with `window/showMessage` (each is shown once).
    private var shownPathProblems: Set<String> = []
    /// Path URIs with a published path problem (cleared once the path is fixed).
    private var publishedPathProblems: Set<String> = []
    /// The broken files the user was last told about: a reload finding the same ones says nothing again.
    private var announcedBrokenFiles: Set<String> = []

    init(connection: ClientConnection) {
        self.connection = connection
    }

    /// Takes a load's problems: publishes them for every open library file, and clears files whose problems are
    /// gone.
    func install(_ problems: LoadProblems, documents: DocumentStore, encoding: PositionEncoding) {
        problemsByFile = problems.byFile
        brokenFilePaths = problems.brokenFilePaths
        for document in documents.documents.values {
            let key = DocumentURI(document.uri).comparableKey
            let problems = problemsByFile[key] ?? []
            if !problems.isEmpty || published.contains(key) {
                publish(problems, to: document.uri, encoding: encoding)
            }
        }
    }

    /// Publishes the library problems of a file the client just opened.
    func publish(forOpened uri: String, encoding: PositionEncoding) {
        let problems = problemsByFile[DocumentURI(uri).comparableKey] ?? []
        if !problems.isEmpty { publish(problems, to: uri, encoding: encoding) }
    }

    /// Each new problem with a library path itself (a missing or unusable directory) as a warning, once, plus a
    /// diagnostic on that path for as long as it lasts; then the broken files (`announceBrokenFiles`).
    func announce(_ library: SnippetLibrary, paths: LibraryPaths, documents: DocumentStore, encoding: PositionEncoding) {
        let pathProblems = library.loaderDiagnostics.filter { DiagnosticCode.pathProblems.contains($0.code) }
        for problem in pathProblems where shownPathProblems.insert(problem.uri + "\u{0}" + problem.message).inserted {
            connection.showMessage(Self.advice(for: problem, paths: paths), type: .warning)
        }
        var byPath: [String: [LibraryDiagnostic]] = [:]
        for problem in pathProblems { byPath[problem.uri, default: []].append(problem) }
        for uri in publishedPathProblems.subtracting(byPath.keys) { publish([], to: uri, encoding: encoding) }
        for (uri, problems) in byPath { publish(problems, to: uri, encoding: encoding) }
        publishedPathProblems = Set(byPath.keys)
        announceBrokenFiles(documents: documents, paths: paths)
    }

    /// How many broken files a warning names before it counts the rest.
    static let namedBrokenFileLimit = 3

    /// Tells the user, as a warning, which snippet files have errors and how to see them: a client shows a file's
    /// problems only once it is opened, so a broken file would otherwise go unnoticed (its good snippets complete,
    /// the rest are silently missing). Said once per set of broken files, not on every reload, and not for files
    /// open in the editor, whose diagnostics show already.
    private func announceBrokenFiles(documents: DocumentStore, paths: LibraryPaths) {
        let current = Set(brokenFilePaths)
        guard current != announcedBrokenFiles else { return }
        announcedBrokenFiles = current
        let open = Set(documents.documents.values.map { DocumentURI($0.uri).comparableKey })
        let unseen = brokenFilePaths.filter { !open.contains(($0 as NSString).standardizingPath) }
        guard !unseen.isEmpty else { return }
        connection.showMessage(Self.brokenFilesWarning(unseen, paths: paths), type: .warning)
    }

    private func publish(_ problems: [LibraryDiagnostic], to uri: String, encoding: PositionEncoding) {
        let key = DocumentURI(uri).comparableKey
        if problems.isEmpty { published.remove(key) } else { published.insert(key) }
        let diagnostics = problems.map { problem in
            let position = Position(sourcePosition: problem.position, in: encoding)
            return Diagnostic(
                range: LSPRange(start: position, end: position),
                severity: DiagnosticSeverity(problem.severity),
                code: problem.code.rawValue, source: LanguageServer.serverName, message: problem.message)
        }
        connection.sendNotification("textDocument/publishDiagnostics", PublishDiagnosticsParams(uri: uri, diagnostics: diagnostics))
    }

    /// The warning naming broken files: up to `namedBrokenFileLimit` of them, then how many more, and the two ways
    /// to see each problem.
    static func brokenFilesWarning(_ files: [String], paths: LibraryPaths) -> String {
        let count = files.count
        var named = files.prefix(namedBrokenFileLimit).joined(separator: ", ")
        if count > namedBrokenFileLimit { named += " and \(count - namedBrokenFileLimit) more" }
        let which = count == 1 ? "1 snippet file has errors" : "\(count) snippet files have errors"
        return "snippets-lsp: \(which): \(named). \(count == 1 ? "Its" : "Their") broken entries are not offered as written. "
            + "Open \(count == 1 ? "it" : "one") to see its problems, or run `\(paths.commandLine("check"))` to list them all."
    }

    /// A path problem as the user should read it: what is wrong, where the path came from, and what to do.
    static func advice(for problem: LibraryDiagnostic, paths: LibraryPaths, mentioningDoctor: Bool = true) -> String {
        let fix: String
        switch paths.source {
        case .setting: fix = "Create it, or fix the path in your editor's snippets.libraries setting."
        case .flags: fix = "Create it, or fix the --library option the editor starts the server with."
        case .environment: fix = "Create it, or fix SNIPPETS_LIBRARY in the environment the editor starts the server in."
        case .defaultDirectory:
            fix = "Create it and put your snippet files there, or set snippets.libraries in your editor (or SNIPPETS_LIBRARY)."
        }
        let doctor = mentioningDoctor ? " `snippets-lsp doctor` shows what the server reads." : ""
        return "snippets-lsp: \(problem.message) (\(paths.sourceDescription)), so no snippets come from it. \(fix)" + doctor
    }
}
