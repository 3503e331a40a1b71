import Foundation
import SnippetsCore

/// `snippets-lsp check`: loads the library and reports every problem, per file, like a compiler would.
public enum CheckCommand: SnippetsCommand {
    public static let name = "check"
    public static let summary = "Load the snippet library and report every problem in it"
    public static let options = LibraryOptions.options + CommandOptions([
        CommandOption(
            "--client", value: .text(placeholder: "NAME"),
            help: "Instead of the problems, list what each snippet loses in that editor compared with VS Code, and "
                + "why, then how many snippets lose something, counted by kind. NAME is one of: "
                + KnownClient.checkableEngines.map(\.name).joined(separator: ", ") + ". "
                + "What is counted: a tabstop with no stop to jump to (plain: no snippets at all), a choice offered "
                + "only as its first option, as a placeholder (Emacs: yasnippet has no choices; Helix and Neovim would "
                + "insert a choice empty, Helix with no menu; an editor the server does not know, generic), a body "
                + "sent as plain text because yasnippet would run part of it as Emacs Lisp (generic: an editor the "
                + "server does not know may hand snippets to yasnippet), a tabstop transform not applied while typing "
                + "(Helix, Zed, Neovim, Emacs: the typed text is repeated unchanged), a placeholder nested in another "
                + "that is not a stop of its own (Neovim), a clipboard or selection variable inserted empty (every "
                + "editor but VS Code: the server resolves their variables and cannot see either). Other variables "
                + "are resolved by the server, so nothing is lost there. Choices on $0 are literal text in every "
                + "editor, as in VS Code (see the check problems). With --client the JSON also has client (name, "
                + "snippets, snippetsLosingSomething, counts by kind, losses: path, uri, line, column, title, kind, "
                + "message)."),
        CommandOption.json(
            "Print one JSON object instead: layers (name, path, named, readOnly, revision), files (path, uri, "
                + "format, snippet and problem counts), diagnostics (path, uri, line, column, severity, code, "
                + "message), conflicts (trigger, languages, definitions with path, line, column, layer and title; the "
                + "first one wins) and totals."),
    ])
    public static let help = """
        \(CommandOptions.usage("check", [options]))

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
        \(options.helpText())

        Exit status: 0 when no file has an error (warnings and notes are fine), 1 when some file or library path
        has an error, 2 for a usage error.
        """

    public static func run(_ context: CommandContext) async -> Int32 {
        guard let arguments = parsedOptionsOnly(context) else { return 2 }
        var engine: SnippetEngine?
        if let name = arguments.value("--client") {
            guard let named = KnownClient.checkableEngine(named: name) else {
                let names = KnownClient.checkableEngines.map(\.name).joined(separator: ", ")
                context.printError("snippets-lsp check: unknown client '\(name)'; use one of: \(names)\n\n\(help)")
                return 2
            }
            engine = named
        }
        let paths = LibraryOptions.paths(from: arguments, environment: context.environment)
        let library = paths.load()
        let learned = LearnedWordsStore.load(paths: paths.paths, library: library)
        var report = CheckReport(library: library, paths: paths, learnedWordsDiagnostics: learned.diagnostics)
        if let engine { report.client = ClientLossReport(library: library, engine: engine) }
        let (meaning, offReason) = MeaningSetup.service(environment: context.environment)
        report.meaning = CheckReport.Meaning(
            state: meaning == nil ? "off" : "on", note: meaning?.encoderPath ?? offReason ?? MeaningSetup.offReason)
        if arguments.wantsJSON {
            context.printJSON(report.json())
        } else if let client = report.client {
            context.print(client.text(totals: report.totals))
        } else {
            context.print(report.text())
        }
        return report.totals.errors > 0 ? 1 : 0
    }
}
