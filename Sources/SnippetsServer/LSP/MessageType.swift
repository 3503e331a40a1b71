/// The `type` of `window/showMessage` and `window/logMessage`: how the client presents the message.
public struct MessageType: RawRepresentable, Codable, Hashable, Sendable {
    public var rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// 1: an error.
    public static let error = MessageType(rawValue: 1)
    /// 2: a warning.
    public static let warning = MessageType(rawValue: 2)
    /// 3: information.
    public static let info = MessageType(rawValue: 3)
    /// 4: a log line.
    public static let log = MessageType(rawValue: 4)
}
