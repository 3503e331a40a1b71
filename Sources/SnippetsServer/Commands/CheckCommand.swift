import Foundation
import SnippetsCore

/// `snippets-lsp check`: loads the library and reports every problem, per file, like a compiler would.
public enum CheckCommand: SnippetsCommand {
    public static let name = "check"
    public static let summary = "Load the snippet library and report every problem in it"
    public static let help = """
        Usage: snippets-lsp check [--library PATH]... [--client NAME] [--json]

        Loads the snippet library and prints, for each file, how many snippets it holds and every problem found in
        it as `file:line:col: severity: message` (line and column count from 1; columns count UTF-8 bytes, as
        compilers do), then a summary: `N snippets in M files, K problems (C trigger conflicts)` (K counts errors
        and warnings, C the triggers defined more than once, each with a warning at every definition; notes, such as
        a SnipMate backtick expression that was not run, and hints are counted after it). With several layers (or a
        named one) each layer is listed first with its revision. Each library folder's learned-words file
        (.snippets-learned.json, see `snippets-lsp learn`) is checked too: a syntax error is an error, an entry whose
        snippet is gone a warning.

        The same trigger defined twice for the same language (in two layers, or twice in one) is a warning at
        each definition that names the other places and which one wins (the first layer; within a layer the
        higher priority, then the one read first). The same body under different triggers or titles is a hint.

        Options:
          --library PATH   A snippet file or directory, or NAME=PATH; repeat for several, in precedence
                           order. Without it: the paths in
                           SNIPPETS_LIBRARY (separated by ':'), else $XDG_CONFIG_HOME/snippets
                           (~/.config/snippets).
          --json           Print one JSON object instead: layers (name, path, named, readOnly, revision), files
                           (path, uri, format, snippet and problem counts), diagnostics (path, uri, line,
                           column, severity, code, message), conflicts (trigger, languages, definitions
                           with path, line, column, layer and title; the first one wins) and totals.
          --client NAME    Instead of the problems, list what each snippet loses in that editor compared with
                           VS Code, and why, then how many snippets lose something, counted by kind. NAME is
                           one of: \(SnippetEngine.named.map(\.name).joined(separator: ", ")).
                           What is counted: a tabstop with no stop to jump to (plain: no snippets at all), a
                           choice offered only as its first option, as a placeholder (Emacs: yasnippet has
                           no choices; Helix and Neovim would insert a choice empty, Helix with no menu; an
                           editor the server does not know, generic), a body sent as plain text because
                           yasnippet would run part of it as Emacs Lisp (generic: an editor the server does
                           not know may hand snippets to yasnippet), a
                           tabstop transform not applied while typing (Helix, Zed, Neovim, Emacs: the typed
                           text is repeated unchanged), a placeholder nested in another that is not a stop of
                           its own (Neovim), a clipboard or selection variable inserted empty (every editor
                           but VS Code: the server resolves their variables and cannot see either). Other
                           variables are resolved by the server, so nothing is lost there. Choices on $0 are
                           literal text in every editor, as in VS Code (see the check problems).
                           With --client the JSON also has client (name, snippets, snippetsLosingSomething,
                           counts by kind, losses: path, uri, line, column, title, kind, message).
          -h, --help       Show this help.

        Exit status: 0 when no file has an error (warnings and notes are fine), 1 when some file or library path
        has an error, 2 for a usage error.
        """

    public static func run(_ context: CommandContext) async -> Int32 {
        let arguments: ParsedArguments
        do {
            arguments = try ParsedArguments(context.arguments, options: ["--library", "--client"], flags: ["--json"])
            if !arguments.positionals.isEmpty { throw ArgumentError.tooManyArguments(arguments.positionals) }
        } catch {
            context.printError("snippets-lsp check: \(error)\n\n\(help)")
            return 2
        }
        var engine: SnippetEngine?
        if let name = arguments.value("--client") {
            guard let named = SnippetEngine.named.first(where: { $0.name == name.lowercased() }) else {
                let names = SnippetEngine.named.map(\.name).joined(separator: ", ")
                context.printError("snippets-lsp check: unknown client '\(name)'; use one of: \(names)\n\n\(help)")
                return 2
            }
            engine = named.engine
        }
        let paths = LibraryPaths.resolve(flags: arguments.values("--library"), environment: context.environment)
        let library = paths.load()
        let learned = LearnedWordsStore.load(paths: paths.paths, library: library)
        var report = CheckReport(library: library, paths: paths, learnedWordsDiagnostics: learned.diagnostics)
        if let engine { report.client = ClientLossReport(library: library, engine: engine) }
        if arguments.has("--json") {
            context.printJSON(report.json())
        } else if let client = report.client {
            context.print(client.text(totals: report.totals))
        } else {
            context.print(report.text())
        }
        return report.totals.errors > 0 ? 1 : 0
    }
}

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
                path: LibraryPath.path(fromFileURI: diagnostic.uri), uri: diagnostic.uri, line: diagnostic.position.line + 1,
                column: diagnostic.position.utf8Column + 1, severity: diagnostic.severity.rawValue, code: diagnostic.code,
                message: diagnostic.message)
        }
        conflicts = LibraryConflicts.triggerConflicts(in: snippetLibrary).map { conflict in
            Conflict(
                trigger: conflict.trigger, languages: conflict.scopes,
                definitions: conflict.definitions.map { snippet in
                    Definition(
                        path: LibraryPath.path(fromFileURI: snippet.location.uri), line: snippet.location.range.start.line + 1,
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

/// `check --client NAME`: what each snippet loses in one editor compared with VS Code (`SnippetBody.losses(in:)`).
struct ClientLossReport: Encodable {
    struct Loss: Encodable {
        var path: String
        var uri: String
        /// 1-based.
        var line: Int
        /// 1-based, in UTF-8 bytes.
        var column: Int
        var title: String
        var kind: String
        var message: String
    }

    /// The client's name as given to `--client`.
    var name: String
    /// Snippets in the library.
    var snippets: Int
    /// Snippets that lose at least one thing.
    var snippetsLosingSomething: Int
    /// Losses by kind (every kind present, zero included).
    var counts: [String: Int]
    var losses: [Loss]

    init(library: SnippetLibrary, engine: SnippetEngine) {
        name = engine.name
        var losses: [Loss] = []
        var counts = Dictionary(uniqueKeysWithValues: SnippetLoss.Kind.allCases.map { ($0.rawValue, 0) })
        var losing = 0
        var snippetCount = 0
        for file in library.files {
            for snippet in file.snippets {
                snippetCount += 1
                let found = SnippetBody.parse(snippet.body).body.losses(in: engine)
                if !found.isEmpty { losing += 1 }
                let start = snippet.location.range.start
                for loss in found {
                    counts[loss.kind.rawValue, default: 0] += 1
                    losses.append(
                        Loss(
                            path: LibraryPath.path(fromFileURI: snippet.location.uri), uri: snippet.location.uri,
                            line: start.line + 1, column: start.utf8Column + 1, title: snippet.title,
                            kind: loss.kind.rawValue, message: loss.message))
                }
            }
        }
        snippets = snippetCount
        snippetsLosingSomething = losing
        self.counts = counts
        self.losses = losses
    }

    /// One line per loss, `path:line:col: NAME: "Title": message`, then the library summary and this one.
    func text(totals: CheckReport.Totals) -> String {
        var lines = losses.map { loss in
            "\(loss.path):\(loss.line):\(loss.column): \(name): \"\(loss.title)\": \(loss.message)"
        }
        lines.append(
            "\(totals.snippets) snippet\(totals.snippets == 1 ? "" : "s") in \(totals.files) file\(totals.files == 1 ? "" : "s"), "
                + "\(totals.problems) problem\(totals.problems == 1 ? "" : "s") (run check without --client to list them)")
        let byKind = SnippetLoss.Kind.allCases.compactMap { kind -> String? in
            let count = counts[kind.rawValue] ?? 0
            return count == 0 ? nil : "\(count) \(Self.phrase(kind, count))"
        }
        var summary = "\(name): \(snippetsLosingSomething) of \(snippets) snippet\(snippets == 1 ? "" : "s") lose something"
        summary += byKind.isEmpty ? "" : " (" + byKind.joined(separator: ", ") + ")"
        lines.append(summary)
        return lines.joined(separator: "\n")
    }

    private static func phrase(_ kind: SnippetLoss.Kind, _ count: Int) -> String {
        let plural = count == 1 ? "" : "s"
        switch kind {
        case .tabstop: return "tabstop\(plural) without a stop"
        case .choice: return "choice\(plural) reduced to the first option"
        case .transform: return "transform\(plural) not applied"
        case .nestedPlaceholder: return "nested placeholder\(plural) flattened"
        case .editorVariable: return "clipboard or selection variable\(plural) left empty"
        case .code: return "snippet\(plural) sent as plain text so that yasnippet runs nothing"
        }
    }
}
