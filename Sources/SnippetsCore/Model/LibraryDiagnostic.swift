/// A problem found while reading the library: never thrown, always collected, so the rest of the library loads.
public struct LibraryDiagnostic: Hashable, Sendable {
    public enum Severity: String, Sendable, Codable, Comparable {
        case error
        case warning
        case note
        /// A suggestion, such as two snippets with the same body that could be merged.
        case hint

        private var rank: Int {
            switch self {
            case .error: 0
            case .warning: 1
            case .note: 2
            case .hint: 3
            }
        }

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    public var uri: String
    /// Where the problem is; for whole-file problems (unreadable, binary) the start of the file.
    public var position: SourcePosition
    public var severity: Severity
    /// A stable, machine-readable name such as `json-syntax` or `duplicate-prefix`.
    public var code: DiagnosticCode
    /// A plain sentence a user can act on; at most `maximumMessageLength` characters.
    public var message: String

    /// The longest message kept. Messages quote what a file holds (a style name, a regular expression, a variable
    /// type), which a hostile or broken file can make megabytes long; past this the message ends in `…`, so no file
    /// makes a diagnostic (in `check`'s output or an editor) grow with its size.
    public static let maximumMessageLength = 1_000

    public init(uri: String, position: SourcePosition, severity: Severity, code: DiagnosticCode, message: String) {
        self.uri = uri
        self.position = position
        self.severity = severity
        self.code = code
        self.message = message.count > Self.maximumMessageLength ? message.prefix(Self.maximumMessageLength - 1) + "…" : message
    }
}
