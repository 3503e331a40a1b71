import SnippetsCore

/// LSP `DiagnosticSeverity`.
public struct DiagnosticSeverity: RawRepresentable, Codable, Hashable, Sendable {
    public var rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// 1: an error.
    public static let error = DiagnosticSeverity(rawValue: 1)

    /// 2: a warning.
    public static let warning = DiagnosticSeverity(rawValue: 2)

    /// 3: information.
    public static let information = DiagnosticSeverity(rawValue: 3)

    /// 4: a hint, such as two snippets that could be merged.
    public static let hint = DiagnosticSeverity(rawValue: 4)
}

extension DiagnosticSeverity {
    /// The wire severity of a library problem's severity.
    public init(_ severity: LibraryDiagnostic.Severity) {
        switch severity {
        case .error: self = .error
        case .warning: self = .warning
        case .note: self = .information
        case .hint: self = .hint
        }
    }
}
