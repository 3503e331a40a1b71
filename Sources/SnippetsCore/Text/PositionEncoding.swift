/// The code unit a column or offset is counted in, as negotiated through LSP's `general.positionEncodings`.
public enum PositionEncoding: String, Sendable, Codable, CaseIterable {
    case utf8 = "utf-8"
    case utf16 = "utf-16"
    case utf32 = "utf-32"

    /// The number of code units `text` occupies in this encoding.
    public func length(of text: Substring) -> Int {
        switch self {
        case .utf8: text.utf8.count
        case .utf16: text.utf16.count
        case .utf32: text.unicodeScalars.count
        }
    }

    /// The number of code units `scalar` occupies in this encoding.
    public func width(of scalar: Unicode.Scalar) -> Int {
        switch self {
        case .utf8: scalar.utf8.count
        case .utf16: scalar.utf16.count
        case .utf32: 1
        }
    }

    /// The number of code units `text` occupies in this encoding.
    public func length(of text: String) -> Int {
        length(of: text[...])
    }
}
