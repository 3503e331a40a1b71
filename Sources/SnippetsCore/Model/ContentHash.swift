/// SHA-1, for git object ids (`blob <size>\0<bytes>`) and the content hash of a cited snippet. Pure Swift, since
/// the package takes no outside dependency; not used where an attacker gains by a collision.
public struct SHA1: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0

    /// A fresh hash.
    public init() { buffer.reserveCapacity(64) }

    /// Adds `bytes`.
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes {
            buffer.append(byte)
            length &+= 1
            if buffer.count == 64 {
                compress(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Adds the UTF-8 bytes of `text`.
    public mutating func update(_ text: String) { update(text.utf8) }

    /// The digest as 40 lowercase hex digits.
    public mutating func finalizeHex() -> String {
        let bitLength = length &* 8
        update([0x80])
        while buffer.count != 56 { update([0]) }
        for shift in stride(from: 56, through: 0, by: -8) { buffer.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        compress(buffer)
        buffer.removeAll()
        let words = [state.0, state.1, state.2, state.3, state.4]
        return words.map { word in
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
    }

    /// The hex digest of `bytes`.
    public static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var hash = SHA1()
        hash.update(bytes)
        return hash.finalizeHex()
    }

    /// The git object id of a blob holding `bytes` (what `git hash-object` prints).
    public static func gitBlobID(_ bytes: [UInt8]) -> String {
        var hash = SHA1()
        hash.update("blob \(bytes.count)\u{0}")
        hash.update(bytes)
        return hash.finalizeHex()
    }

    private mutating func compress(_ block: [UInt8]) {
        var w = [UInt32](repeating: 0, count: 80)
        for i in 0..<16 {
            w[i] = UInt32(block[i * 4]) << 24 | UInt32(block[i * 4 + 1]) << 16 | UInt32(block[i * 4 + 2]) << 8 | UInt32(block[i * 4 + 3])
        }
        for i in 16..<80 {
            let x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]
            w[i] = x << 1 | x >> 31
        }
        var (a, b, c, d, e) = state
        for i in 0..<80 {
            let f: UInt32
            let k: UInt32
            switch i {
            case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
            case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
            case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
            default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
            }
            let temp = (a << 5 | a >> 27) &+ f &+ e &+ k &+ w[i]
            e = d
            d = c
            c = b << 30 | b >> 2
            b = a
            a = temp
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
    }
}

/// FNV-1a 64: a cheap, stable hash of a file's bytes, for the revision of a layer outside git.
public enum FNV1a {
    /// The hash of `bytes`, continuing from `hash`.
    public static func hash<Bytes: Sequence>(_ bytes: Bytes, continuing hash: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64
    where Bytes.Element == UInt8 {
        var hash = hash
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// 16 lowercase hex digits.
    public static func hex(_ value: UInt64) -> String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

extension Snippet {
    /// A hash of what the snippet inserts and how it is found: title, triggers, description, body and scopes (not
    /// its place in the file, so moving an entry does not change it). `sha1:` plus 40 hex digits.
    public var contentHash: String {
        var hash = SHA1()
        func field(_ text: String) {
            hash.update(String(text.utf8.count))
            hash.update([0x3A])  // ':'
            hash.update(text)
        }
        field(title)
        field(String(triggers.count))
        for trigger in triggers { field(trigger) }
        field(description ?? "")
        field(body)
        field(scopes.sorted().joined(separator: ","))
        return "sha1:" + hash.finalizeHex()
    }
}
