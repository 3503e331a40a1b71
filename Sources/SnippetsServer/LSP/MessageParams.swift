/// `window/showMessage` and `window/logMessage` params (type 1 error, 2 warning, 3 info, 4 log).
public struct MessageParams: Codable, Hashable, Sendable {
    public var type: Int
    public var message: String
}
