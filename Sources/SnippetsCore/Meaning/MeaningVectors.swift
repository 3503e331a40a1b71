import Foundation

/// Sentence vectors by the key of the text they embed (`MeaningText.key(of:)`), stored as 8-bit codes with one
/// scale per vector: 384 bytes a snippet, a quarter of 32-bit floats, and a dot product within about 0.002 of the
/// unquantised one. One store serves every snapshot of a library (an unchanged snippet keeps its vector across
/// reloads) and is what the server's cache writes to disk (`serialized`, `init(serialized:)`).
///
/// Thread-safe: one lock, held only to look up or append; rows are never changed or removed while the store lives.
public final class MeaningVectors: @unchecked Sendable {
    /// The embedder the vectors came from (`SentenceEmbedder.identity`).
    public let identity: String
    public let dimension: Int
    private let lock = NSLock()
    private var codes: [Int8] = []
    private var scales: [Float] = []
    private var keys: [String] = []
    private var rowByKey: [String: Int] = [:]

    public init(identity: String, dimension: Int) {
        self.identity = identity
        self.dimension = dimension
    }

    /// How many vectors the store holds.
    public var count: Int { lock.withLock { keys.count } }

    /// The row of the vector for `key`, if the store has it.
    public func row(forKey key: String) -> Int? { lock.withLock { rowByKey[key] } }

    /// Stores `vector` (of `dimension` floats) for `key` and returns its row; an existing row is kept.
    @discardableResult
    public func add(key: String, vector: [Float]) -> Int {
        precondition(vector.count == dimension, "a vector of \(vector.count) for a store of \(dimension)")
        let largest = vector.reduce(Float(0)) { max($0, abs($1)) }
        let scale = largest > 0 ? largest / 127 : 1
        let quantised = vector.map { Int8(clamping: Int(($0 / scale).rounded())) }
        return lock.withLock {
            if let row = rowByKey[key] { return row }
            let row = keys.count
            codes.append(contentsOf: quantised)
            scales.append(scale)
            keys.append(key)
            rowByKey[key] = row
            return row
        }
    }

    /// The dot product of `query` (unit length, `dimension` floats) with each of `rows`, in order.
    public func similarities(of query: [Float], rows: [Int]) -> [Float] {
        precondition(query.count == dimension)
        let dimension = dimension
        return lock.withLock {
            codes.withUnsafeBufferPointer { codes in
                query.withUnsafeBufferPointer { query in
                    rows.map { row in Self.dot(codes.baseAddress! + row * dimension, query.baseAddress!, dimension) * scales[row] }
                }
            }
        }
    }

    /// The dot product of `query` with every vector in the store, indexed by row: one pass over the codes as they lie
    /// in memory, each row once however many snippets share its text (copies of a library share every row).
    public func allSimilarities(of query: [Float]) -> [Float] {
        precondition(query.count == dimension)
        let dimension = dimension
        return lock.withLock {
            codes.withUnsafeBufferPointer { codes in
                query.withUnsafeBufferPointer { query in
                    (0..<scales.count).map { row in Self.dot(codes.baseAddress! + row * dimension, query.baseAddress!, dimension) * scales[row] }
                }
            }
        }
    }

    /// `codes · query` over `count` elements, sixteen lanes at a time.
    @inline(__always)
    private static func dot(_ codes: UnsafePointer<Int8>, _ query: UnsafePointer<Float>, _ count: Int) -> Float {
        var lanes = SIMD16<Float>()
        var index = 0
        while index + 16 <= count {
            let code = UnsafeRawPointer(codes + index).loadUnaligned(as: SIMD16<Int8>.self)
            let value = UnsafeRawPointer(query + index).loadUnaligned(as: SIMD16<Float>.self)
            lanes += SIMD16<Float>(code) * value
            index += 16
        }
        var sum = lanes.sum()
        while index < count {
            sum += Float(codes[index]) * query[index]
            index += 1
        }
        return sum
    }

    /// The vector at `row`, unquantised.
    public func vector(atRow row: Int) -> [Float] {
        lock.withLock {
            let scale = scales[row]
            return codes[(row * dimension)..<((row + 1) * dimension)].map { Float($0) * scale }
        }
    }

    // MARK: - On disk

    private static let magic: [UInt8] = Array("SNPVEC1\n".utf8)

    /// The store as bytes: a header (magic, dimension, count, identity), then per vector its key (40 hex digits),
    /// its scale and its codes. `keeping` limits it to those keys (what the current library uses), so a cache does
    /// not grow with every edit ever made.
    public func serialized(keeping: Set<String>? = nil) -> [UInt8] {
        lock.withLock {
            let rows = keys.indices.filter { keeping?.contains(keys[$0]) ?? true }
            var bytes = Self.magic
            func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
            append32(UInt32(dimension))
            append32(UInt32(rows.count))
            let identityBytes = Array(identity.utf8.prefix(255))
            bytes.append(UInt8(identityBytes.count))
            bytes.append(contentsOf: identityBytes)
            bytes.reserveCapacity(bytes.count + rows.count * (40 + 4 + dimension))
            for row in rows {
                let key = Array(keys[row].utf8)
                bytes.append(contentsOf: key.count == 40 ? key : Array((key + Array(repeating: UInt8(ascii: "0"), count: 40)).prefix(40)))
                append32(scales[row].bitPattern)
                codes[(row * dimension)..<((row + 1) * dimension)].forEach { bytes.append(UInt8(bitPattern: $0)) }
            }
            return bytes
        }
    }

    /// A store read from `bytes` written by `serialized`; nil when they are not such a store, or not one of
    /// `identity` and `dimension` (a cache of another encoder is never read as this one's).
    public convenience init?<Bytes: RandomAccessCollection>(serialized bytes: Bytes, identity: String, dimension: Int)
    where Bytes.Element == UInt8, Bytes.Index == Int {
        let bytes = Array(bytes)
        var offset = 0
        func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, offset + count <= bytes.count else { return nil }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }
        func take32() -> UInt32? {
            take(4).map { slice in slice.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
        }
        guard let magic = take(Self.magic.count), Array(magic) == Self.magic,
            let storedDimension = take32(), Int(storedDimension) == dimension, let count = take32(),
            let identityLength = take(1)?.first, let storedIdentity = take(Int(identityLength)),
            Array(storedIdentity) == Array(identity.utf8.prefix(255)),
            Int(count) <= (bytes.count - offset) / (44 + dimension)
        else { return nil }
        self.init(identity: identity, dimension: dimension)
        codes.reserveCapacity(Int(count) * dimension)
        for _ in 0..<Int(count) {
            guard let key = take(40), let scaleBits = take32(), let row = take(dimension) else { return nil }
            let text = String(decoding: key, as: UTF8.self)
            guard rowByKey[text] == nil else { continue }
            rowByKey[text] = keys.count
            keys.append(text)
            scales.append(Float(bitPattern: scaleBits))
            codes.append(contentsOf: row.map { Int8(bitPattern: $0) })
        }
    }
}
