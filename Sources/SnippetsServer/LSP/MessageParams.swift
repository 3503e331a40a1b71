/// `window/showMessage` and `window/logMessage` params.
public struct MessageParams: Codable, Hashable, Sendable {
    public var type: MessageType
    public var message: String
}
