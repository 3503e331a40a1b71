/// Interns token texts: each distinct byte string gets the next integer identifier. Open addressing with FNV-1a,
/// so looking a token up needs neither a `String` nor the randomly seeded standard hasher.
struct TokenTable: Sendable {
    private(set) var texts = ByteTable()
    private var slots: [Int32] = [Int32](repeating: -1, count: 1 << 12)
    private var hashes: [UInt32] = []

    var count: Int { hashes.count }

    private static func hash(_ text: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in text { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        return hash
    }

    /// The identifier of `text`, if it was interned.
    func find(_ text: UnsafeBufferPointer<UInt8>) -> Int32? {
        let hash = Self.hash(text)
        let mask = slots.count - 1
        var slot = Int(hash) & mask
        while true {
            let id = slots[slot]
            if id < 0 { return nil }
            if hashes[Int(id)] == hash && texts.equals(Int(id), text) { return id }
            slot = (slot + 1) & mask
        }
    }

    /// The identifier of `text`, if it was interned.
    func find(_ text: String) -> Int32? {
        var text = text
        return text.withUTF8 { find($0) }
    }

    /// The identifier of `text`, interning it when new.
    mutating func intern(_ text: UnsafeBufferPointer<UInt8>) -> Int32 {
        let hash = Self.hash(text)
        var mask = slots.count - 1
        var slot = Int(hash) & mask
        while true {
            let id = slots[slot]
            if id < 0 { break }
            if hashes[Int(id)] == hash && texts.equals(Int(id), text) { return id }
            slot = (slot + 1) & mask
        }
        let id = Int32(hashes.count)
        texts.append(text)
        hashes.append(hash)
        if hashes.count * 2 > slots.count {
            slots = [Int32](repeating: -1, count: slots.count * 2)
            mask = slots.count - 1
            for (existing, existingHash) in hashes.enumerated() {
                var slot = Int(existingHash) & mask
                while slots[slot] >= 0 { slot = (slot + 1) & mask }
                slots[slot] = Int32(existing)
            }
        } else {
            slots[slot] = id
        }
        return id
    }
}

/// Many short byte strings in one buffer: token and trigger texts, compared as bytes.
struct ByteTable: Sendable {
    private var bytes: [UInt8] = []
    private var starts: [Int32] = [0]

    init(capacity: Int = 0) {
        starts.reserveCapacity(capacity + 1)
    }

    var count: Int { starts.count - 1 }

    mutating func append(_ text: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: text)
        starts.append(Int32(bytes.count))
    }

    mutating func append(_ text: [UInt8]) {
        bytes.append(contentsOf: text)
        starts.append(Int32(bytes.count))
    }

    func length(of entry: Int) -> Int { Int(starts[entry + 1] - starts[entry]) }

    /// Calls `body` with the bytes of `entry`.
    func withBytes<Result>(of entry: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        bytes.withUnsafeBufferPointer { buffer in
            body(UnsafeBufferPointer(rebasing: buffer[Int(starts[entry])..<Int(starts[entry + 1])]))
        }
    }

    /// The text of `entry`.
    func string(_ entry: Int) -> String {
        String(decoding: bytes[Int(starts[entry])..<Int(starts[entry + 1])], as: UTF8.self)
    }

    /// Whether `entry` holds exactly `text`.
    func equals(_ entry: Int, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = Int(starts[entry])
        guard Int(starts[entry + 1]) - start == text.count else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            for offset in 0..<text.count where buffer[start + offset] != text[offset] { return false }
            return true
        }
    }

    /// Entry numbers ordered by their bytes (ties by entry number).
    func sortedOrder() -> [Int32] {
        // Sort by the first eight bytes packed big-endian (a zero byte pads short entries), then compare in full.
        var keyed: [(key: UInt64, entry: Int32)] = []
        keyed.reserveCapacity(count)
        bytes.withUnsafeBufferPointer { buffer in
            for entry in 0..<count {
                let start = Int(starts[entry])
                let end = Int(starts[entry + 1])
                var key: UInt64 = 0
                for offset in 0..<8 {
                    key = key << 8 | UInt64(start + offset < end ? buffer[start + offset] : 0)
                }
                keyed.append((key, Int32(entry)))
            }
            keyed.sort { lhs, rhs in
                if lhs.key != rhs.key { return lhs.key < rhs.key }
                let ordering = compare(Int(lhs.entry), Int(rhs.entry), buffer)
                return ordering != 0 ? ordering < 0 : lhs.entry < rhs.entry
            }
        }
        return keyed.map(\.entry)
    }

    private func compare(_ lhs: Int, _ rhs: Int, _ buffer: UnsafeBufferPointer<UInt8>) -> Int {
        var left = Int(starts[lhs])
        let leftEnd = Int(starts[lhs + 1])
        var right = Int(starts[rhs])
        let rightEnd = Int(starts[rhs + 1])
        while left < leftEnd && right < rightEnd {
            if buffer[left] != buffer[right] { return buffer[left] < buffer[right] ? -1 : 1 }
            left += 1
            right += 1
        }
        return (leftEnd - left) - (rightEnd - right)
    }

    /// -1 when `entry` sorts before every string starting with `key`, 0 when it starts with `key`, 1 when after.
    private func comparePrefix(_ entry: Int, _ key: UnsafeBufferPointer<UInt8>, _ buffer: UnsafeBufferPointer<UInt8>)
        -> Int
    {
        var position = Int(starts[entry])
        let end = Int(starts[entry + 1])
        for byte in key {
            guard position < end else { return -1 }
            if buffer[position] != byte { return buffer[position] < byte ? -1 : 1 }
            position += 1
        }
        return 0
    }

    /// The positions in `order` (a `sortedOrder()`) of the entries that start with `key`.
    func prefixRange(of key: [UInt8], in order: [Int32]) -> Range<Int> {
        bytes.withUnsafeBufferPointer { buffer in
            key.withUnsafeBufferPointer { key in
                var low = 0
                var high = order.count
                while low < high {
                    let middle = (low + high) / 2
                    if comparePrefix(Int(order[middle]), key, buffer) < 0 { low = middle + 1 } else { high = middle }
                }
                let lower = low
                high = order.count
                while low < high {
                    let middle = (low + high) / 2
                    if comparePrefix(Int(order[middle]), key, buffer) <= 0 { low = middle + 1 } else { high = middle }
                }
                return lower..<low
            }
        }
    }
}

