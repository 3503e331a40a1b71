import Foundation
import Testing

@testable import SnippetsEncoder

/// The encoder against what sentence-transformers would answer (Tests/Fixtures/encoder/reference.json: the
/// `tokenizers` library's ids and a float64 forward pass over the fp32 weights, by scripts/encoder/reference.py).
@Suite(.enabled(if: EncoderFixture.isRequired, EncoderFixture.skipReason))
struct SentenceEncoderTests {
    @Test func tokenIDsEqualTheTokenizersLibrarys() throws {
        let encoder = try EncoderFixture.loaded()
        for reference in EncoderFixture.reference.cases {
            #expect(encoder.tokenIDs(for: reference.text) == reference.ids, "\(reference.text.debugDescription)")
        }
    }

    @Test func vectorsMatchTheReferenceWithBLAS() throws {
        let encoder = try EncoderFixture.loaded()
        #expect(encoder.matrixLibrary != "Swift", "no BLAS library loaded: install libopenblas0-pthread (make build-deps)")
        for reference in EncoderFixture.reference.cases {
            let vector = encoder.embed(reference.text)
            #expect(vector.count == 384)
            let cosine = EncoderFixture.cosine(vector, reference.vector)
            #expect(cosine >= 0.999, "\(reference.text.debugDescription): cosine \(cosine)")
        }
    }

    /// The pure-Swift kernel, on the shortest sentences: a debug build runs it at about half a second per token
    /// (`make encoder-bench` compares it with the reference on every sentence, in release).
    @Test func vectorsMatchTheReferenceWithTheSwiftKernel() throws {
        let encoder = try EncoderFixture.loaded()
        let short = EncoderFixture.reference.cases.filter { $0.ids.count <= 7 }
        #expect(short.count >= 4)
        for reference in short {
            let vector = encoder.embed(reference.text, multiply: .portable)
            let cosine = EncoderFixture.cosine(vector, reference.vector)
            #expect(cosine >= 0.999, "\(reference.text.debugDescription): cosine \(cosine)")
        }
    }

    @Test func vectorsHaveUnitLength() throws {
        let encoder = try EncoderFixture.loaded()
        for text in ["", "Gentle payment reminder", "!!!"] {
            let length = encoder.embed(text).reduce(Float(0)) { $0 + $1 * $1 }.squareRoot()
            #expect(abs(length - 1) < 1e-5, "\(text.debugDescription): length \(length)")
        }
    }

    @Test func theSameTextGivesBitIdenticalVectors() throws {
        let encoder = try EncoderFixture.loaded()
        let text = "how do I remind a client that an invoice is overdue?"
        let first = encoder.embed(text)
        _ = encoder.embed("something else in between, of another length entirely")
        #expect(encoder.embed(text) == first)
        #expect(encoder.embed([text, "Bash strict mode"])[0] == first)
    }

    @Test func concurrentCallsGiveTheSameVectors() throws {
        let encoder = try EncoderFixture.loaded()
        let texts = ["Gentle payment reminder", "Bash strict mode", "git: undo the last commit", "café naïve", "日本語"]
        let expected = texts.map { encoder.embed($0) }
        let results = Results(count: 4 * texts.count)
        // Threads of Dispatch's own pool, not Swift's cooperative one, all embedding at once.
        DispatchQueue.concurrentPerform(iterations: 4 * texts.count) { index in
            results.set(index, encoder.embed(texts[index % texts.count]))
        }
        for (index, vector) in results.values.enumerated() {
            #expect(vector == expected[index % texts.count], "\(texts[index % texts.count]) differed when embedded concurrently")
        }
    }

    /// What a user would notice: a question about an unpaid bill lands on the payment reminder, not on shell code.
    @Test func aPaymentQuestionIsCloserToThePaymentReminder() throws {
        let encoder = try EncoderFixture.loaded()
        let question = encoder.embed("what do I send someone who hasn't paid?")
        let reminder = EncoderFixture.cosine(question, encoder.embed("Gentle payment reminder"))
        let bash = EncoderFixture.cosine(question, encoder.embed("Bash strict mode"))
        #expect(reminder > bash + 0.2, "reminder \(reminder), bash \(bash)")
    }

    @Test func identityIsTheFilesChecksum() throws {
        let encoder = try EncoderFixture.loaded()
        #expect(encoder.identity.count == 16)
        #expect(encoder.identity.allSatisfy { $0.isHexDigit })
        #expect(encoder.dimension == 384)
    }
}

/// Vectors written from several threads.
private final class Results: @unchecked Sendable {
    // @unchecked: every access to `storage` holds `lock`.
    private let lock = NSLock()
    private var storage: [[Float]]

    init(count: Int) {
        storage = Array(repeating: [], count: count)
    }

    func set(_ index: Int, _ vector: [Float]) {
        lock.withLock { storage[index] = vector }
    }

    var values: [[Float]] {
        lock.withLock { storage }
    }
}
