import Foundation
import SnippetsCore

/// What `check` found, in the shape `--json` prints (keys sorted, so the output is stable).
struct CheckReport: Encodable {
    struct File: Encodable {
        var path: String
        var uri: String
        var format: String
        var snippets: Int
        var errors: Int
        var warnings: Int
        var notes: Int
    }

    struct Diagnostic: Encodable {
        var path: String
        var uri: String
        /// 1-based.
        var line: Int
        /// 1-based, in UTF-8 bytes.
        var column: Int
        var severity: String
        var code: String
        var message: String
    }

    struct Totals: Encodable {
        var snippets = 0
        var files = 0
        var errors = 0
        var warnings = 0
        var notes = 0
        /// Suggestions (`duplicate-body`).
        var hints = 0
        /// Errors plus warnings.
        var problems = 0
        /// Triggers defined more than once for the same languages (their warnings are counted in `problems`).
        var conflicts = 0
    }

    struct Library: Encodable {
        var paths: [String]
        var source: String
    }

    /// One library layer, in precedence order.
    struct Layer: Encodable {
        var name: String
        var path: String
        /// False when the name was made from the folder's name.
        var named: Bool
        var readOnly: Bool
        /// `LayerRevision.text`; nil for project snippets.
        var revision: String?
    }

    /// One definition of a conflicting trigger.
    struct Definition: Encodable {
        var path: String
        /// 1-based.
        var line: Int
        /// 1-based, in UTF-8 bytes.
        var column: Int
        var layer: String
        var title: String
    }

    /// A trigger defined more than once for the same languages; `definitions[0]` wins.
    struct Conflict: Encodable {
        var trigger: String
        /// Language scopes, `*` for every language.
        var languages: [String]
        var definitions: [Definition]
    }

    var library: Library
    var layers: [Layer]
    var files: [File]
    var diagnostics: [Diagnostic]
    /// Each trigger defined more than once for the same languages (each definition also has a `trigger-conflict`
    /// warning in `diagnostics`).
    var conflicts: [Conflict]
    var totals: Totals
    /// With `--client`: what the library loses in that editor.
    var client: ClientLossReport?
    /// What the formats of the files read say about themselves (`FormatRegistry.checkNotes(for:)`); nil when none does.
    var formatNotes: [String]?
    /// Whether ask can match questions by meaning here, and why not (set by the command: see `Meaning`).
    var meaning: Meaning?

    struct Meaning: Encodable {
        /// `on` (an encoder file was found) or `off`.
        var state: String
        /// The encoder file, when on; why it is off and how to turn it on, when off.
        var note: String
    }

    init(library snippetLibrary: SnippetLibrary, paths: LibraryPaths, learnedWordsDiagnostics: [LibraryDiagnostic] = []) {
        library = Library(paths: paths.paths, source: paths.source.rawValue)
        layers = snippetLibrary.layers.map { layer in
            Layer(
                name: layer.name, path: layer.path, named: layer.isNamed, readOnly: layer.isReadOnly,
                revision: snippetLibrary.layerRevisions[layer.name]?.text)
        }
        func count(_ diagnostics: [LibraryDiagnostic], _ severity: LibraryDiagnostic.Severity) -> Int {
            diagnostics.filter { $0.severity == severity }.count
        }
        files = snippetLibrary.files.map { file in
            File(
                path: file.path, uri: file.uri, format: file.format.rawValue, snippets: file.snippets.count,
                errors: count(file.diagnostics, .error), warnings: count(file.diagnostics, .warning),
                notes: count(file.diagnostics, .note))
        }
        let all = snippetLibrary.diagnostics + learnedWordsDiagnostics
        diagnostics = all.map { diagnostic in
            Diagnostic(
                path: DocumentURI(diagnostic.uri).displayPath, uri: diagnostic.uri, line: diagnostic.position.line + 1,
                column: diagnostic.position.utf8Column + 1, severity: diagnostic.severity.rawValue, code: diagnostic.code.rawValue,
                message: diagnostic.message)
        }
        conflicts = LibraryConflicts.triggerConflicts(in: snippetLibrary).map { conflict in
            Conflict(
                trigger: conflict.trigger, languages: conflict.scopes,
                definitions: conflict.definitions.map { snippet in
                    Definition(
                        path: DocumentURI(snippet.location.uri).displayPath, line: snippet.location.range.start.line + 1,
                        column: snippet.location.range.start.utf8Column + 1, layer: snippet.layer, title: snippet.title)
                })
        }
        let notes = FormatRegistry.checkNotes(for: snippetLibrary.files)
        formatNotes = notes.isEmpty ? nil : notes
        totals = Totals(
            snippets: snippetLibrary.snippets.count, files: snippetLibrary.files.count, errors: count(all, .error),
            warnings: count(all, .warning), notes: count(all, .note), hints: count(all, .hint))
        totals.problems = totals.errors + totals.warnings
        totals.conflicts = conflicts.count
    }

    /// The human-readable report: loader problems, then each file's count and problems, then the summary.
    func text() -> String {
        var lines: [String] = []
        var byURI: [String: [Diagnostic]] = [:]
        for diagnostic in diagnostics { byURI[diagnostic.uri, default: []].append(diagnostic) }
        let fileURIs = Set(files.map(\.uri))
        func line(_ diagnostic: Diagnostic) -> String {
            "\(diagnostic.path):\(diagnostic.line):\(diagnostic.column): \(diagnostic.severity): \(diagnostic.message)"
        }
        // The layers, when there is more than one or one was named: precedence and provenance at a glance.
        if layers.count > 1 || layers.contains(where: \.named) {
            for layer in layers {
                var text = "layer \(layer.name): \(layer.path)"
                if !layer.named && layer.name != LibraryLayer.projectLayerName { text += " (named after its folder; name it with NAME=PATH)" }
                if layer.readOnly { text += ", read-only" }
                if let revision = layer.revision { text += ", revision \(revision)" }
                lines.append(text)
            }
        }
        // Problems of no file read (a missing path, a manifest entry) come first, in the order found.
        for diagnostic in diagnostics where !fileURIs.contains(diagnostic.uri) { lines.append(line(diagnostic)) }
        for file in files {
            let problems = file.errors + file.warnings
            var summary = "\(file.path): \(file.snippets) snippet\(file.snippets == 1 ? "" : "s")"
            if problems > 0 { summary += ", \(problems) problem\(problems == 1 ? "" : "s")" }
            lines.append(summary)
            for diagnostic in byURI[file.uri] ?? [] { lines.append(line(diagnostic)) }
        }
        lines += formatNotes ?? []
        // Said only when off for a reason the person may not know (not when they turned it off).
        if let meaning, meaning.state == "off", meaning.note != MeaningSetup.turnedOffReason { lines.append(meaning.note) }
        var summary =
            "\(totals.snippets) snippet\(totals.snippets == 1 ? "" : "s") in \(totals.files) file\(totals.files == 1 ? "" : "s"), \(totals.problems) problem\(totals.problems == 1 ? "" : "s")"
        if totals.conflicts > 0 {
            summary += " (\(totals.conflicts) trigger conflict\(totals.conflicts == 1 ? "" : "s"))"
        }
        if totals.notes > 0 { summary += ", \(totals.notes) note\(totals.notes == 1 ? "" : "s")" }
        if totals.hints > 0 { summary += ", \(totals.hints) hint\(totals.hints == 1 ? "" : "s")" }
        lines.append(summary)
        return lines.joined(separator: "\n")
    }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
