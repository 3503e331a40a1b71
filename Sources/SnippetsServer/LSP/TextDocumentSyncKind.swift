/// How the client sends document changes (`textDocumentSync.change`).
public struct TextDocumentSyncKind: RawRepresentable, Codable, Hashable, Sendable {
    public var rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// 0: documents are not synced.
    public static let none = TextDocumentSyncKind(rawValue: 0)
    /// 1: the whole text on every change.
    public static let full = TextDocumentSyncKind(rawValue: 1)
    /// 2: the changed ranges only.
    public static let incremental = TextDocumentSyncKind(rawValue: 2)
}
