import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A LayerNorm's scale and shift.
struct LayerNormWeights: Sendable {
    let weight: [Float]
    let bias: [Float]
}

/// One BERT encoder layer's weights, f32, row-major, each matrix stored as PyTorch's Linear does (out × in).
struct TransformerLayer: Sendable {
    /// Query, key and value weights stacked (3·hidden × hidden), so one multiply projects all three.
    let queryKeyValue: [Float]
    let queryKeyValueBias: [Float]
    let attentionOutput: [Float]
    let attentionOutputBias: [Float]
    let attentionNorm: LayerNormWeights
    let intermediate: [Float]
    let intermediateBias: [Float]
    let output: [Float]
    let outputBias: [Float]
    let outputNorm: LayerNormWeights
}

/// The word-embedding table, left in the file and read one row per token (`pread`), so that its 30,522 rows never
/// sit in the process's memory; q8 rows are scaled back to f32 as they are read.
struct WordEmbeddings: Sendable {
    let file: FileDescriptor
    let record: TensorRecord
    /// Per-row scales of a q8 table (kept: 120 KB); empty for f16 and f32 tables.
    let scales: [Float]

    /// Writes row `ids[i]` at `destination + i · columns`. A row the file no longer holds (it was rewritten in
    /// place while loaded, which the build never does) reads as zeros.
    func gather(_ ids: [Int32], into destination: UnsafeMutablePointer<Float>) {
        let columns = record.columns
        let bytesPerValue = record.encoding == .float32 ? 4 : record.encoding == .float16 ? 2 : 1
        let rowBytes = columns * bytesPerValue
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 8)
        defer { buffer.deallocate() }
        for (index, id) in ids.enumerated() {
            let row = destination + index * columns
            let start = record.offset + (record.encoding == .quantized8 ? record.rows * 4 : 0) + Int(id) * rowBytes
            guard file.read(into: buffer, count: rowBytes, at: start) else {
                row.update(repeating: 0, count: columns)
                continue
            }
            switch record.encoding {
            case .float32:
                for column in 0..<columns {
                    row[column] = Float(bitPattern: UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: column * 4, as: UInt32.self)))
                }
            case .float16:
                for column in 0..<columns {
                    row[column] = floatFromHalf(UInt16(littleEndian: buffer.loadUnaligned(fromByteOffset: column * 2, as: UInt16.self)))
                }
            case .quantized8:
                let scale = scales[Int(id)]
                for column in 0..<columns {
                    row[column] = Float(buffer.load(fromByteOffset: column, as: Int8.self)) * scale
                }
            }
        }
    }
}

/// Hugging Face's BertModel forward pass for one sequence (no padding, token type 0), then sentence-transformers'
/// mean pooling and L2 normalisation.
struct BertModel: Sendable {
    let configuration: EncoderConfiguration
    let wordEmbeddings: WordEmbeddings
    let positionEmbeddings: [Float]
    /// Token type 0's row: every text is a single sequence.
    let tokenTypeEmbedding: [Float]
    let embeddingNorm: LayerNormWeights
    let layers: [TransformerLayer]

    /// The unit-length sentence vector for `ids` (at most `maxSequenceLength` of them, [CLS] and [SEP] included).
    func sentenceEmbedding(of ids: [Int32], multiply: MatrixMultiply) -> [Float] {
        let n = ids.count
        let h = configuration.hiddenSize
        let heads = configuration.headCount
        let d = configuration.headSize
        let inner = configuration.intermediateSize
        let epsilon = configuration.layerNormEpsilon
        precondition(n >= 1 && n <= min(configuration.maxPositions, configuration.maxSequenceLength))

        let x = UnsafeMutablePointer<Float>.allocate(capacity: n * h)
        let queryKeyValue = UnsafeMutablePointer<Float>.allocate(capacity: n * 3 * h)
        let scores = UnsafeMutablePointer<Float>.allocate(capacity: n * n)
        let context = UnsafeMutablePointer<Float>.allocate(capacity: n * h)
        let projected = UnsafeMutablePointer<Float>.allocate(capacity: n * h)
        let expanded = UnsafeMutablePointer<Float>.allocate(capacity: n * inner)
        defer {
            for buffer in [x, queryKeyValue, scores, context, projected, expanded] { buffer.deallocate() }
        }

        // Embeddings: (word + token type) + position, as BertEmbeddings adds them, then LayerNorm.
        wordEmbeddings.gather(ids, into: x)
        positionEmbeddings.withUnsafeBufferPointer { position in
            tokenTypeEmbedding.withUnsafeBufferPointer { tokenType in
                for i in 0..<n {
                    for j in 0..<h { x[i * h + j] = (x[i * h + j] + tokenType[j]) + position[i * h + j] }
                }
            }
        }
        layerNorm(x, rows: n, columns: h, embeddingNorm, epsilon: epsilon)

        let scale = 1 / Float(d).squareRoot()
        for layer in layers {
            // Self-attention: Q, K, V in one multiply; per head softmax(Q·Kᵀ/√d)·V.
            layer.queryKeyValue.withUnsafeBufferPointer { weights in
                multiply.multiply(m: n, n: 3 * h, k: h, a: x, lda: h, b: weights.baseAddress!, ldb: h, c: queryKeyValue, ldc: 3 * h)
            }
            addBias(layer.queryKeyValueBias, to: queryKeyValue, rows: n, columns: 3 * h)
            for head in 0..<heads {
                let query = queryKeyValue + head * d
                let key = queryKeyValue + h + head * d
                let value = queryKeyValue + 2 * h + head * d
                multiply.multiply(m: n, n: n, k: d, alpha: scale, a: query, lda: 3 * h, b: key, ldb: 3 * h, c: scores, ldc: n)
                softmaxRows(scores, rows: n, columns: n)
                multiply.multiply(
                    m: n, n: d, k: n, a: scores, lda: n, b: value, ldb: 3 * h, transposesB: false, c: context + head * d, ldc: h)
            }
            layer.attentionOutput.withUnsafeBufferPointer { weights in
                multiply.multiply(m: n, n: h, k: h, a: context, lda: h, b: weights.baseAddress!, ldb: h, c: projected, ldc: h)
            }
            addBiasAndResidual(layer.attentionOutputBias, residual: x, to: projected, rows: n, columns: h)
            layerNorm(projected, rows: n, columns: h, layer.attentionNorm, epsilon: epsilon)
            x.update(from: projected, count: n * h)

            // Feed-forward: dense to `inner`, exact (erf) GELU, dense back, residual, LayerNorm.
            layer.intermediate.withUnsafeBufferPointer { weights in
                multiply.multiply(m: n, n: inner, k: h, a: x, lda: h, b: weights.baseAddress!, ldb: h, c: expanded, ldc: inner)
            }
            addBias(layer.intermediateBias, to: expanded, rows: n, columns: inner)
            for index in 0..<n * inner {
                let value = expanded[index]
                expanded[index] = 0.5 * value * (1 + erff(value / Float(2).squareRoot()))
            }
            layer.output.withUnsafeBufferPointer { weights in
                multiply.multiply(m: n, n: h, k: inner, a: expanded, lda: inner, b: weights.baseAddress!, ldb: inner, c: projected, ldc: h)
            }
            addBiasAndResidual(layer.outputBias, residual: x, to: projected, rows: n, columns: h)
            layerNorm(projected, rows: n, columns: h, layer.outputNorm, epsilon: epsilon)
            x.update(from: projected, count: n * h)
        }

        // Mean over every token (all are attended: no padding), then unit length (sentence-transformers' Normalize).
        var pooled = [Float](repeating: 0, count: h)
        for i in 0..<n {
            for j in 0..<h { pooled[j] += x[i * h + j] }
        }
        var squares: Float = 0
        for j in 0..<h {
            pooled[j] /= Float(n)
            squares += pooled[j] * pooled[j]
        }
        let norm = max(squares.squareRoot(), 1e-12)
        return pooled.map { $0 / norm }
    }

    private func addBias(_ bias: [Float], to matrix: UnsafeMutablePointer<Float>, rows: Int, columns: Int) {
        bias.withUnsafeBufferPointer { bias in
            for i in 0..<rows {
                for j in 0..<columns { matrix[i * columns + j] += bias[j] }
            }
        }
    }

    /// matrix = (matrix + bias) + residual: a Linear layer's output, then BERT's skip connection.
    private func addBiasAndResidual(
        _ bias: [Float], residual: UnsafePointer<Float>, to matrix: UnsafeMutablePointer<Float>, rows: Int, columns: Int
    ) {
        bias.withUnsafeBufferPointer { bias in
            for i in 0..<rows {
                for j in 0..<columns {
                    let index = i * columns + j
                    matrix[index] = (matrix[index] + bias[j]) + residual[index]
                }
            }
        }
    }

    private func layerNorm(
        _ matrix: UnsafeMutablePointer<Float>, rows: Int, columns: Int, _ norm: LayerNormWeights, epsilon: Float
    ) {
        norm.weight.withUnsafeBufferPointer { weight in
            norm.bias.withUnsafeBufferPointer { bias in
                for i in 0..<rows {
                    let row = matrix + i * columns
                    var sum: Float = 0
                    for j in 0..<columns { sum += row[j] }
                    let mean = sum / Float(columns)
                    var squares: Float = 0
                    for j in 0..<columns { squares += (row[j] - mean) * (row[j] - mean) }
                    let deviation = (squares / Float(columns) + epsilon).squareRoot()
                    for j in 0..<columns { row[j] = (row[j] - mean) / deviation * weight[j] + bias[j] }
                }
            }
        }
    }

    private func softmaxRows(_ matrix: UnsafeMutablePointer<Float>, rows: Int, columns: Int) {
        for i in 0..<rows {
            let row = matrix + i * columns
            var largest = row[0]
            for j in 1..<max(columns, 1) { largest = max(largest, row[j]) }
            var sum: Float = 0
            for j in 0..<columns {
                row[j] = expf(row[j] - largest)
                sum += row[j]
            }
            for j in 0..<columns { row[j] /= sum }
        }
    }
}
