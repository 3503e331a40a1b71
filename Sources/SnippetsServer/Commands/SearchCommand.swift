import Foundation
import SnippetsCore

/// `snippets-lsp search`: ranks the library's snippets for a query, as completion would, and says where each is.
public enum SearchCommand: SnippetsCommand {
    public static let name = "search"
    public static let summary = "Search the snippet library the way completion does"
    public static let options = LibraryOptions.options + CommandOptions([
        CommandOption(
            "--language", value: .text(placeholder: "ID"),
            help: "Only snippets for this language (and what it extends) plus global ones."),
        CommandOption(
            "--limit", value: .wholeNumber(placeholder: "N", minimum: 1, maximum: nil),
            help: "At most N results (default 20)."),
        CommandOption.json(
            "A JSON array of {id, title, triggers, match, score, layer, location {uri, range}}."),
    ])
    public static let help = """
        \(CommandOptions.usage("search", arguments: "QUERY", [options]))

        Ranks snippets for QUERY as the editor's completion does: exact trigger matches first, then trigger
        prefixes, then matches in titles and descriptions, then in bodies; rarer words weigh more. Several
        QUERY words are joined with spaces; the last word also matches as a prefix.

        Options:
        \(options.helpText())

        Each text result line: TRIGGERS  TITLE  (MATCH)  FILE:LINE  [LAYER], lines counted from 1; LAYER, the
        library layer it came from, is shown when there are several layers or one is named (--library NAME=PATH;
        unnamed, a layer is named after its folder).
        Exit status: 0 when the library was searched (also when nothing matches); 1 when the library is empty or
        could not be read (a path that does not exist, every file broken), said on stderr as `ask` says it; 2 on
        a usage error.
        """

    public static func run(_ context: CommandContext) async -> Int32 {
        let arguments: ParsedArguments
        let limit: Int
        do {
            arguments = try options.parse(context.arguments)
            limit = try arguments.wholeNumber("--limit") ?? 20
        } catch {
            context.printError("snippets-lsp search: \(error)")
            return 2
        }
        guard !arguments.positionals.isEmpty else {
            context.printError("snippets-lsp search: missing QUERY (see `snippets-lsp search --help`)")
            return 2
        }
        let query = arguments.positionals.joined(separator: " ")
        let paths = LibraryOptions.paths(from: arguments, environment: context.environment)
        let library = paths.load()
        // "No snippets match" is only said about a library that was searched.
        if let unsearchable = LibraryState.result(for: library) {
            if arguments.wantsJSON { context.printJSON("[]") }
            context.printError("snippets-lsp search: \(unsearchable.answer)")
            if let reason = unsearchable.reason {
                context.printError("\(unsearchable.status.rawValue) (\(reason.code.rawValue)): \(reason.message)")
            }
            return 1
        }
        let index = TokenIndex(library: library)
        let results = index.search(query, language: arguments.value("--language"), limit: limit)
        let hits = results.hits.compactMap { hit in library.snippet(withID: hit.snippetID).map { (hit, $0) } }

        if arguments.wantsJSON {
            context.printJSON(jsonText(hits))
            return 0
        }
        guard !hits.isEmpty else {
            context.print("No snippets match '\(query)'.")
            return 0
        }
        let showsLayers = library.layers.count > 1 || library.layers.contains(where: \.isNamed)
        for (hit, snippet) in hits {
            let triggers = snippet.triggers.isEmpty ? "-" : snippet.triggers.joined(separator: ", ")
            let layer = snippet.layer.isEmpty || !showsLayers ? "" : "  [\(snippet.layer)]"
            context.print("\(triggers)  \(snippet.title)  (\(hit.match))  \(snippet.location.pathAndLine)\(layer)")
        }
        if results.isIncomplete {
            context.print("(\(hits.count) of \(results.totalMatches) matches; use --limit for more)")
        }
        return 0
    }

    private struct JSONHit: Encodable {
        var id: String
        var title: String
        var triggers: [String]
        var match: String
        var score: Double
        /// The library layer the snippet came from.
        var layer: String
        /// Columns in UTF-16, as on every command line.
        var location: LSPLocation
    }

    static func jsonText(_ hits: [(SearchHit, Snippet)]) -> String {
        let objects = hits.map { hit, snippet in
            JSONHit(
                id: snippet.id.rawValue, title: snippet.title, triggers: snippet.triggers, match: hit.match.wireName,
                score: (hit.score * 10_000).rounded() / 10_000, layer: snippet.layer,
                location: LSPLocation(sourceLocation: snippet.location, in: .utf16))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(objects)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
