import Foundation
import SnippetsCore

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
                            path: DocumentURI(snippet.location.uri).displayPath, uri: snippet.location.uri,
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
