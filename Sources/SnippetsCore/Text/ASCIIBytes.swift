/// The one check that lets text take an ASCII fast path (line tables, tokens, body parsing, trigger characters).
public enum ASCIIBytes {
    /// Whether any byte of `bytes` is 0x80 or above, eight bytes at a time.
    public static func containsNonASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let raw = UnsafeRawPointer(base)
        var offset = 0
        while offset + 8 <= bytes.count {
            if raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return true }
            offset += 8
        }
        while offset < bytes.count {
            if bytes[offset] >= 0x80 { return true }
            offset += 1
        }
        return false
    }
}
