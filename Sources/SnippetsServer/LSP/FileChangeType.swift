/// LSP `FileChangeType`: what happened to a watched file.
public struct FileChangeType: RawRepresentable, Codable, Hashable, Sendable {
    public var rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// 1: created.
    public static let created = FileChangeType(rawValue: 1)

    /// 2: changed.
    public static let changed = FileChangeType(rawValue: 2)

    /// 3: deleted.
    public static let deleted = FileChangeType(rawValue: 3)
}
