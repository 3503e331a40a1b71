import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The model's numbers, as the encoder file's config block records them.
struct EncoderConfiguration: Sendable, Equatable {
    var vocabularySize: Int
    var hiddenSize: Int
    var layerCount: Int
    var headCount: Int
    var intermediateSize: Int
    var maxPositions: Int
    /// Word pieces per text, [CLS] and [SEP] included (sentence_bert_config.json's max_seq_length).
    var maxSequenceLength: Int
    var clsID: Int32
    var sepID: Int32
    var unknownID: Int32
    var maxInputCharactersPerWord: Int
    var lowercases: Bool
    var stripsAccents: Bool
    var separatesCJKIdeographs: Bool
    var cleansText: Bool
    var layerNormEpsilon: Float

    var headSize: Int { hiddenSize / headCount }
}

/// How a tensor's values are stored (convert.py's ENCODINGS).
enum TensorEncoding: UInt32, Sendable {
    case float32 = 0
    case float16 = 1
    /// Per row: an f32 scale, then signed bytes; value = byte × scale.
    case quantized8 = 2
}

/// Where one tensor's data lies in the file.
struct TensorRecord: Sendable {
    var encoding: TensorEncoding
    var rows: Int
    var columns: Int
    /// Absolute offset of the data (for q8, of the scales; the values follow them).
    var offset: Int

    var byteCount: Int {
        switch encoding {
        case .float32: rows * columns * 4
        case .float16: rows * columns * 2
        case .quantized8: rows * 4 + rows * columns
        }
    }
}

/// An encoder file parsed and checked (magic, version, every section's bounds, shapes, the checksum), over bytes
/// the caller keeps alive. See scripts/encoder/convert.py for the format.
struct EncoderFileContents {
    static let magic: [UInt8] = Array("SNIPENC\0".utf8)
    static let formatVersion: UInt32 = 1
    static let checksumSeed: UInt64 = 0xCBF2_9CE4_8422_2325
    static let checksumPrime: UInt64 = 0x100_0000_01B3
    static let alignment = 64
    /// Tensors before the layers: word, position and token type embeddings, embedding LayerNorm weight and bias.
    static let embeddingTensorCount = 5
    /// Tensors per layer (minilm.layer_names).
    static let layerTensorCount = 16

    let configuration: EncoderConfiguration
    /// Every token's UTF-8 bytes, in id order.
    let vocabulary: Vocabulary
    /// Tokens matched verbatim in raw text before normalisation ([CLS], [MASK], …).
    let specialIDs: [Int32]
    let tensors: [TensorRecord]
    let checksum: UInt64

    init(bytes: UnsafeRawBufferPointer, path: String) throws {
        let size = bytes.count
        let magic = Self.magic
        if size < magic.count || !zip(bytes.prefix(magic.count), magic).allSatisfy({ $0 == $1 }) {
            // Fewer bytes than the magic, all of them matching it: an interrupted copy, not another kind of file.
            if size < magic.count && zip(bytes, magic).allSatisfy({ $0 == $1 }) {
                throw EncoderFileError.truncated(path: path, size: size, needed: magic.count)
            }
            throw EncoderFileError.wrongMagic(path: path)
        }
        var cursor = ByteCursor(bytes: bytes, offset: magic.count, path: path)
        let version = try cursor.uint32()
        guard version == Self.formatVersion else {
            throw EncoderFileError.unsupportedVersion(path: path, found: version, supported: Self.formatVersion)
        }
        let configSize = Int(try cursor.uint32())
        let configStart = cursor.offset
        guard configSize >= 13 * 4 else {
            throw EncoderFileError.corrupt(path: path, reason: "a config block of \(configSize) bytes")
        }
        var numbers: [Int] = []
        for _ in 0..<12 { numbers.append(Int(try cursor.uint32())) }
        let epsilon = Float(bitPattern: try cursor.uint32())
        _ = try cursor.take(configSize - (cursor.offset - configStart))
        let flags = numbers[11]
        let configuration = EncoderConfiguration(
            vocabularySize: numbers[0], hiddenSize: numbers[1], layerCount: numbers[2], headCount: numbers[3],
            intermediateSize: numbers[4], maxPositions: numbers[5], maxSequenceLength: numbers[6],
            clsID: Int32(truncatingIfNeeded: numbers[7]), sepID: Int32(truncatingIfNeeded: numbers[8]),
            unknownID: Int32(truncatingIfNeeded: numbers[9]), maxInputCharactersPerWord: numbers[10],
            lowercases: flags & 1 != 0, stripsAccents: flags & 2 != 0, separatesCJKIdeographs: flags & 4 != 0,
            cleansText: flags & 8 != 0, layerNormEpsilon: epsilon)
        try Self.check(configuration, path: path)
        self.configuration = configuration

        let vocabularyStart = try cursor.take(Int(try cursor.uint32()))
        let vocabulary = Vocabulary(lines: UnsafeRawBufferPointer(rebasing: bytes[vocabularyStart..<cursor.offset]))
        guard let vocabulary, vocabulary.count == configuration.vocabularySize else {
            throw EncoderFileError.corrupt(
                path: path, reason: "\(vocabulary?.count ?? 0) vocabulary entries, the config says \(configuration.vocabularySize)")
        }
        self.vocabulary = vocabulary

        let specialCount = Int(try cursor.uint32())
        guard specialCount <= configuration.vocabularySize else {
            throw EncoderFileError.corrupt(path: path, reason: "\(specialCount) special tokens")
        }
        var specialIDs: [Int32] = []
        for _ in 0..<specialCount {
            let id = try cursor.uint32()
            guard id < configuration.vocabularySize else {
                throw EncoderFileError.corrupt(path: path, reason: "special token id \(id) is outside the vocabulary")
            }
            specialIDs.append(Int32(id))
        }
        self.specialIDs = specialIDs

        var tensors: [TensorRecord] = []
        for expected in Self.expectedShapes(configuration) {
            try cursor.align(Self.alignment)
            let encodingValue = try cursor.uint32()
            let rows = Int(try cursor.uint32())
            let columns = Int(try cursor.uint32())
            _ = try cursor.uint32()
            guard let encoding = TensorEncoding(rawValue: encodingValue) else {
                throw EncoderFileError.corrupt(path: path, reason: "tensor \(tensors.count) has unknown encoding \(encodingValue)")
            }
            guard columns == expected.columns, expected.rows.contains(rows) else {
                throw EncoderFileError.corrupt(
                    path: path, reason: "tensor \(tensors.count) is \(rows)×\(columns), expected \(expected.rows.lowerBound)×\(expected.columns)")
            }
            var record = TensorRecord(encoding: encoding, rows: rows, columns: columns, offset: 0)
            record.offset = try cursor.take(record.byteCount)
            tensors.append(record)
        }
        self.tensors = tensors
        try cursor.align(Self.alignment)
        let checksumOffset = cursor.offset
        let stored = try cursor.uint64()
        guard cursor.offset == size else {
            throw EncoderFileError.corrupt(path: path, reason: "\(size - cursor.offset) bytes after the checksum")
        }
        let computed = Self.checksum(of: UnsafeRawBufferPointer(rebasing: bytes[0..<checksumOffset]))
        guard computed == stored else {
            throw EncoderFileError.corrupt(path: path, reason: "checksum mismatch")
        }
        self.checksum = stored
    }

    /// The file's checksum over `bytes` (a multiple of 8 long): h = h × P + w over little-endian u64 words.
    static func checksum(of bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash = checksumSeed
        var offset = 0
        while offset < bytes.count {
            hash = hash &* checksumPrime &+ UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        return hash
    }

    /// The tensors in f32, row-major, one after another in a single array (Q, K and V stacked without a copy).
    func floats(_ records: TensorRecord..., in bytes: UnsafeRawBufferPointer) -> [Float] {
        let total = records.reduce(0) { $0 + $1.rows * $1.columns }
        return [Float](unsafeUninitializedCapacity: total) { buffer, initialized in
            var start = 0
            for record in records {
                decode(record, in: bytes, into: buffer.baseAddress! + start)
                start += record.rows * record.columns
            }
            initialized = total
        }
    }

    private func decode(_ record: TensorRecord, in bytes: UnsafeRawBufferPointer, into destination: UnsafeMutablePointer<Float>) {
        let count = record.rows * record.columns
        do {
            let base = bytes.baseAddress! + record.offset
            switch record.encoding {
            case .float32:
                for index in 0..<count {
                    destination[index] = Float(bitPattern: UInt32(littleEndian: base.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))
                }
            case .float16:
                for index in 0..<count {
                    destination[index] = floatFromHalf(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self)))
                }
            case .quantized8:
                let values = base + record.rows * 4
                for row in 0..<record.rows {
                    let scale = Float(bitPattern: UInt32(littleEndian: base.loadUnaligned(fromByteOffset: row * 4, as: UInt32.self)))
                    for column in 0..<record.columns {
                        let index = row * record.columns + column
                        destination[index] = Float(values.load(fromByteOffset: index, as: Int8.self)) * scale
                    }
                }
            }
        }
    }

    /// Each tensor's shape in file order: rows allowed (token types may be 1 or more), columns.
    private static func expectedShapes(_ c: EncoderConfiguration) -> [(rows: ClosedRange<Int>, columns: Int)] {
        let h = c.hiddenSize
        var shapes: [(rows: ClosedRange<Int>, columns: Int)] = [
            (c.vocabularySize...c.vocabularySize, h), (c.maxPositions...c.maxPositions, h), (1...16, h), (1...1, h), (1...1, h),
        ]
        for _ in 0..<c.layerCount {
            shapes += [
                (h...h, h), (1...1, h), (h...h, h), (1...1, h), (h...h, h), (1...1, h),  // query, key, value
                (h...h, h), (1...1, h), (1...1, h), (1...1, h),  // attention output, its LayerNorm
                (c.intermediateSize...c.intermediateSize, h), (1...1, c.intermediateSize),  // intermediate
                (h...h, c.intermediateSize), (1...1, h), (1...1, h), (1...1, h),  // output, its LayerNorm
            ]
        }
        return shapes
    }

    /// Refuses numbers no real model has, before anything is allocated from them.
    private static func check(_ c: EncoderConfiguration, path: String) throws {
        let problems = [
            (1...1_000_000).contains(c.vocabularySize) ? nil : "vocabulary size \(c.vocabularySize)",
            (1...8192).contains(c.hiddenSize) ? nil : "hidden size \(c.hiddenSize)",
            (1...64).contains(c.layerCount) ? nil : "\(c.layerCount) layers",
            (1...c.hiddenSize).contains(c.headCount) && c.hiddenSize % c.headCount == 0
                ? nil : "\(c.headCount) heads for hidden size \(c.hiddenSize)",
            (1...65536).contains(c.intermediateSize) ? nil : "intermediate size \(c.intermediateSize)",
            (2...8192).contains(c.maxPositions) ? nil : "\(c.maxPositions) positions",
            (2...c.maxPositions).contains(c.maxSequenceLength) ? nil : "max sequence length \(c.maxSequenceLength)",
            [c.clsID, c.sepID, c.unknownID].allSatisfy({ $0 >= 0 && Int($0) < c.vocabularySize }) ? nil : "special ids out of range",
            c.layerNormEpsilon.isFinite && c.layerNormEpsilon > 0 ? nil : "LayerNorm epsilon \(c.layerNormEpsilon)",
        ].compactMap { $0 }
        if let problem = problems.first {
            throw EncoderFileError.corrupt(path: path, reason: problem)
        }
    }
}

/// IEEE half → single, exactly (normals, subnormals, infinities, NaN); Float16 is not on every platform we build for.
@inline(__always)
func floatFromHalf(_ half: UInt16) -> Float {
    let sign = UInt32(half & 0x8000) << 16
    let exponent = UInt32(half >> 10) & 0x1F
    let mantissa = UInt32(half & 0x3FF)
    if exponent == 0x1F {
        return Float(bitPattern: sign | 0x7F80_0000 | mantissa << 13)
    }
    if exponent == 0 {
        // Zero or subnormal: mantissa × 2^-24.
        let magnitude = Float(mantissa) * 0x1p-24
        return sign == 0 ? magnitude : -magnitude
    }
    return Float(bitPattern: sign | (exponent + 112) << 23 | mantissa << 13)
}

/// Reads little-endian numbers from a byte buffer, throwing `truncated` past its end.
private struct ByteCursor {
    let bytes: UnsafeRawBufferPointer
    var offset: Int
    let path: String

    /// Skips `count` bytes and returns where they start.
    mutating func take(_ count: Int) throws -> Int {
        let (end, overflow) = offset.addingReportingOverflow(count)
        guard count >= 0, !overflow, end <= bytes.count else {
            throw EncoderFileError.truncated(path: path, size: bytes.count, needed: overflow ? Int.max : end)
        }
        defer { offset = end }
        return offset
    }

    mutating func uint32() throws -> UInt32 {
        let at = try take(4)
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }

    mutating func uint64() throws -> UInt64 {
        let at = try take(8)
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }

    mutating func align(_ alignment: Int) throws {
        _ = try take((alignment - offset % alignment) % alignment)
    }
}

/// An open file descriptor, closed when the last owner goes. `pread` on it is safe from any thread.
final class FileDescriptor: Sendable {
    let rawValue: Int32

    init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    deinit {
        close(rawValue)
    }

    /// Reads `count` bytes at `offset` into `buffer`; false when the file no longer holds them.
    func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Bool {
        var done = 0
        while done < count {
            let result = pread(rawValue, buffer + done, count - done, off_t(offset + done))
            if result > 0 {
                done += result
            } else if result < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }
}
