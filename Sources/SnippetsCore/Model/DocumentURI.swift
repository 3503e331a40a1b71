import Foundation

/// A URI as a client sends it (a document, a workspace folder) or as the loader writes it for a library file, and the
/// one place a `file:` URI and a file system path are converted (both ways) or compared (`comparableKey`).
///
/// Paths become `file://` plus the percent-encoded path (every byte but unreserved characters and `/` encoded), so
/// `SnippetID`s and diagnostics name a file the same way on every load. URIs from clients are read leniently: the
/// scheme in any case, an authority (`file://localhost/…`) skipped, `%XX` decoded byte by byte (a malformed escape
/// stays as it is), a query or fragment dropped. Any other scheme (`untitled:`, `vscode-notebook-cell:`) has no
/// path.
public struct DocumentURI: Hashable, Sendable, CustomStringConvertible {
    /// The URI as written.
    public let stringValue: String

    /// The URI `stringValue`, as a client or a file sent it.
    public init(_ stringValue: String) {
        self.stringValue = stringValue
    }

    /// The `file://` URI of the absolute path `filePath`.
    public init(filePath: String) {
        var result = "file://"
        let hex: [Character] = Array("0123456789ABCDEF")
        for byte in filePath.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                result.append(Character(Unicode.Scalar(byte)))
            default:
                result.append("%")
                result.append(hex[Int(byte >> 4)])
                result.append(hex[Int(byte & 0x0F)])
            }
        }
        self.stringValue = result
    }

    public var description: String { stringValue }

    /// The file system path of a `file:` URI, percent-decoded; nil for any other scheme or an empty path.
    public var filePath: String? {
        let utf8 = stringValue.utf8
        // The scheme in any case: a letter matches either case, the colon only itself.
        guard utf8.count >= 5,
            zip(utf8.prefix(5), "file:".utf8).allSatisfy({ $0 == $1 || ($1 >= UInt8(ascii: "a") && $0 | 0x20 == $1) })
        else { return nil }
        var rest = utf8.dropFirst(5)
        if rest.starts(with: "//".utf8) {
            rest = rest.dropFirst(2)
            rest = rest.drop { $0 != UInt8(ascii: "/") }
        }
        rest = rest.prefix { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        guard !rest.isEmpty else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rest.count)
        var iterator = rest.makeIterator()
        var pending: [UInt8] = []
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            pending = [byte]
            guard let high = iterator.next() else { break }
            pending.append(high)
            guard let low = iterator.next() else { break }
            pending.append(low)
            if let high = Self.hexValue(high), let low = Self.hexValue(low) {
                bytes.append(high << 4 | low)
            } else {
                bytes.append(contentsOf: pending)
            }
            pending = []
        }
        bytes.append(contentsOf: pending)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// How a location is named to a person: the path of a file URI, any other URI as it is written.
    public var displayPath: String { filePath ?? stringValue }

    /// Whether the URI names a file on disk.
    public var isFile: Bool { filePath != nil }

    /// The URI reduced to a key two spellings of one file share (clients and the loader may percent-encode
    /// differently, and a path may hold `.` or `..`); a URI that names no file is its own key.
    public var comparableKey: String {
        filePath.map { ($0 as NSString).standardizingPath } ?? stringValue
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
