/// LSP `MarkupContent`.
public struct MarkupContent: Codable, Hashable, Sendable {
    public var kind: String
    public var value: String

    /// Markdown content.
    public static func markdown(_ value: String) -> MarkupContent { MarkupContent(kind: "markdown", value: value) }
}
