import Foundation
import Testing
@testable import SnippetsCore

/// Diagnostic codes reach users and clients as strings (`check --json`, LSP diagnostics): a published code keeps
/// its spelling.
@Suite struct DiagnosticCodeTests {
    /// Every published code, written out: a renamed or removed case fails here, and so does a new one until it is
    /// listed, so no code (UltiSnips, yasnippet and espanso ones included) can be published unprotected.
    @Test func publishedCodesKeepTheirSpelling() {
        let published = [
            // Library paths and files (`LibraryLoader`)
            "missing-path", "unusable-path", "unreadable", "missing-file", "file-too-large", "utf16-file",
            "binary-file", "no-snippets", "unknown-format", "already-loaded", "symlink-loop", "layer-name",
            // Snippet files (the format readers)
            "json-syntax", "wrong-type", "duplicate-key", "duplicate-prefix", "missing-body", "empty-body",
            "unknown-key", "malformed-header", "unexpected-line", "bad-priority", "snippet-override",
            "backtick-expression", "unterminated-backtick", "snipmate-dollar", "more-body-problems",
            // Snippet bodies (`SnippetBody.parse`)
            "unterminated-placeholder", "unterminated-variable", "unterminated-choice", "empty-choice",
            "invalid-transform", "invalid-regex", "backtracking-regex", "choice-on-final-tabstop",
            "invalid-placeholder", "invalid-variable", "unknown-variable", "nesting-too-deep",
            // The library as a whole (`LibraryConflicts`)
            "trigger-conflict", "duplicate-body",
            // UltiSnips (`Formats/UltiSnips`, named there as `UltiSnipsCode`)
            "ultisnips-code", "ultisnips-global", "ultisnips-action", "ultisnips-option", "ultisnips-transformation",
            "ultisnips-clearsnippets", "missing-endsnippet",
            // yasnippet (`Formats/Yasnippet`)
            "emacs-lisp-backquote", "emacs-lisp-mirror", "emacs-lisp-field", "yasnippet-choice",
            "yasnippet-indent-marker", "emacs-lisp-condition", "emacs-lisp-expand-env", "yasnippet-command",
            "yasnippet-binding", "unknown-directive", "unknown-snippet-type",
            // espanso (`Formats/Espanso`) and its YAML
            "yaml-syntax", "espanso-not-a-mapping", "espanso-imports", "espanso-import-outside",
            "espanso-import-unreadable", "espanso-vars", "espanso-matches", "espanso-match", "espanso-unknown-key",
            "espanso-triggers", "espanso-regex", "espanso-no-trigger", "espanso-replace", "espanso-image",
            "espanso-no-replace", "espanso-undefined-variable", "espanso-variable-loop", "espanso-expansion-limit",
            "espanso-random", "espanso-match-not-found", "espanso-missing-param", "espanso-variable-type",
            "espanso-uppercase-style",
            "espanso-date-locale", "espanso-date-unmapped", "espanso-markdown", "espanso-html", "espanso-shell-not-run",
            "espanso-script-not-run",
            // Learned words (`LearnedWords.load`)
            "learned-syntax", "learned-shape", "learned-too-large", "learned-unreadable", "learned-outside-folder",
            "learned-snippet-gone",
        ]
        let declared = DiagnosticCode.allCases.map(\.rawValue)
        #expect(Set(published).count == published.count, "a code is listed twice")
        #expect(Set(declared).subtracting(published).sorted() == [], "declared but not listed as published")
        #expect(Set(published).subtracting(declared).sorted() == [], "published but no longer declared")
        #expect(published.allSatisfy { DiagnosticCode(rawValue: $0)?.description == $0 })
    }

    /// `DiagnosticCode` is where codes are documented for the next reader; a case without a summary is a code
    /// nobody can look up.
    @Test func everyCodeIsDocumentedWhereItIsDeclared() throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/SnippetsCore/Model/DiagnosticCode.swift")
        let lines = try String(contentsOf: source, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let undocumented = DiagnosticCode.allCases.map(\.rawValue).filter { code in
            guard let index = lines.firstIndex(where: { $0.contains("case ") && $0.hasSuffix(" = \"\(code)\"") }) else { return true }
            return index == 0 || !lines[index - 1].trimmingCharacters(in: .whitespaces).hasPrefix("///")
        }
        #expect(undocumented == [])
    }

    @Test func aCodeReadsAsItsRawValueInText() {
        #expect("\(DiagnosticCode.jsonSyntax)" == "json-syntax")
    }
}
