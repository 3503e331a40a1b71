import Testing
@testable import SnippetsCore

/// Diagnostic codes reach users and clients as strings (`check --json`, LSP diagnostics): a published code keeps
/// its spelling.
@Suite struct DiagnosticCodeTests {
    @Test func publishedCodesKeepTheirSpelling() {
        let published = [
            "missing-path", "unusable-path", "unreadable", "missing-file", "file-too-large", "utf16-file",
            "binary-file", "no-snippets", "unknown-format", "already-loaded", "symlink-loop", "layer-name",
            "json-syntax", "wrong-type", "duplicate-key", "duplicate-prefix", "missing-body", "empty-body",
            "unknown-key", "malformed-header", "unexpected-line", "bad-priority", "snippet-override",
            "backtick-expression", "unterminated-backtick", "more-body-problems", "unterminated-placeholder",
            "unterminated-variable", "unterminated-choice", "empty-choice", "invalid-transform", "invalid-regex",
            "choice-on-final-tabstop", "invalid-placeholder", "invalid-variable", "unknown-variable",
            "nesting-too-deep", "trigger-conflict", "duplicate-body", "learned-syntax", "learned-shape",
            "learned-too-large", "learned-unreadable", "learned-outside-folder", "learned-snippet-gone",
        ]
        #expect(Set(DiagnosticCode.allCases.map(\.rawValue)).isSuperset(of: published))
        #expect(published.allSatisfy { DiagnosticCode(rawValue: $0)?.description == $0 })
    }

    @Test func aCodeReadsAsItsRawValueInText() {
        #expect("\(DiagnosticCode.jsonSyntax)" == "json-syntax")
    }
}
