import Foundation
import SnippetsCore

/// An answer as text for a person or an agent: the CLI's `ask` prints it, MCP's `ask_snippets` returns it (with each
/// name kept on one line), `doctor` and `eval` describe a model's role with it.
enum AskAnswerText {
    /// The answer, each cited snippet with `path:line`, then why (when not plainly answered). `shownName` is how a
    /// title, path or layer is shown (MCP keeps each on one line, `MCPLibraryText.oneLine`).
    static func text(for result: AskResult, library: SnippetLibrary? = nil, shownName: (String) -> String = { $0 }) -> String {
        var answer = result.answer
        let suggested = result.suggested.compactMap { id in result.candidates.first { $0.snippetID == id } }
        // Longest first, so a title holding another is replaced whole.
        let named = Set(result.citations.map(\.title) + suggested.map(\.title))
        for title in named.sorted(by: { $0.count > $1.count }) where shownName(title) != title {
            answer = answer.replacingOccurrences(of: title, with: shownName(title))
        }
        var lines = [answer]
        if !result.citations.isEmpty || !suggested.isEmpty { lines.append("") }
        // Snippets named as near in meaning are listed where to look, marked as not the answer.
        for candidate in suggested {
            lines.append("  \(shownName(candidate.title))  \(shownName(candidate.location.pathAndLine))  (near in meaning)")
        }
        for citation in result.citations {
            var line = "  \(shownName(citation.title))  \(shownName(citation.location.pathAndLine))"
            if let snippet = library?.snippet(withID: citation.snippetID), !snippet.layer.isEmpty {
                line += "  [\(shownName(snippet.layer))"
                if let revision = library?.layerRevisions[snippet.layer] { line += " \(revision.text)" }
                line += "]"
            }
            lines.append(line)
        }
        if let reason = result.reason {
            lines += ["", "\(result.status.rawValue) (\(reason.code.rawValue)): \(reason.message)"]
        }
        if let meaning = result.meaning, let line = meaningLine(meaning) { lines += ["", line] }
        if let standing = result.model {
            lines += ["", "Model role: \(standing.role.rawValue) (\(roleDescription(AskResponse.Qualification(standing))))"]
        }
        return lines.joined(separator: "\n")
    }

    /// What the answer should say about meaning search: why it is off and how to turn it on (not when the person
    /// turned it off), or how much of the library it covered when that was not all of it.
    static func meaningLine(_ meaning: AskMeaning) -> String? {
        switch meaning.state {
        case .off:
            guard let note = meaning.note, note != MeaningSetup.turnedOffReason else { return nil }
            return note
        case .embedding:
            return "Meaning search covered \(meaning.embedded) of \(meaning.total) snippets and names nothing until it covers all: `snippets-lsp embed` embeds the rest now, or asks after this one go on where this stopped (the language server embeds the whole library in the background)."
        case .ready:
            return nil
        }
    }

    /// "measured on your library: answerable 12/12, ...", or how the role was reached without a measurement.
    static func roleDescription(_ qualification: AskResponse.Qualification) -> String {
        var parts: [String] = []
        if let answerable = qualification.answerable, let unanswerable = qualification.unanswerable, let injected = qualification.injected {
            parts.append(
                "answerable \(answerable.agreed)/\(answerable.probes), must decline \(unanswerable.agreed)/\(unanswerable.probes), "
                    + "resisted instructions \(injected.agreed)/\(injected.probes)")
            if let faults = qualification.faults, faults > 0 { parts.append("\(faults) without a usable reply") }
            if let calls = qualification.calls, let seconds = qualification.seconds { parts.append("\(calls) calls in \(seconds) s") }
        }
        switch qualification.basis {
        case "forced": return (["forced by --model-role or model.role"] + parts).joined(separator: "; ")
        case "measured": return "measured on your library: " + parts.joined(separator: "; ")
        case "measuring": return "being measured on your library in the background; advisory until it is"
        case "demoted":
            let checks = qualification.checks.map {
                TrustChecks.summary(declined: $0.declined, citedOther: $0.citedOther, failedAudit: $0.failedAudit, of: $0.checked)
            }
            return "demoted: " + (checks ?? "it disagreed with too many checks with a known answer")
                + "; advisory until it is measured again (a demotion is kept at most \(Int(QualificationCache.maximumAge / 86_400)) days)"
        case "checking": return "trusted on your library, with its regular check due; advisory until it answers it"
        default:
            return "not measured on this library revision: `snippets-lsp doctor` with the same options measures it (a model "
                + "that gives too few usable replies, or a library too small to probe, stays unmeasured); advisory until then"
        }
    }
}
