import Foundation
import Testing

@testable import SnippetsEncoder

/// The encoder file the tests load (`$SNIPPETS_ENCODER`, else `make encoder`'s .build/encoder/snippets-encoder.bin)
/// and the recorded reference (Tests/Fixtures/encoder/reference.json).
enum EncoderFixture {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let path: String = {
        if let explicit = ProcessInfo.processInfo.environment[EncoderFile.environmentVariable], !explicit.isEmpty {
            return explicit
        }
        return packageRoot.appendingPathComponent(".build/encoder/snippets-encoder.bin").path
    }()

    static let fileExists = FileManager.default.fileExists(atPath: path)

    /// Whether the tests that need the file run: when it exists, and always on CI (`CI` set), where a missing file
    /// must fail rather than skip, since `make test` builds it.
    static let isRequired = fileExists || ProcessInfo.processInfo.environment["CI"] != nil

    static let skipReason: Comment = "no encoder file at .build/encoder/snippets-encoder.bin: run `make encoder` (or set SNIPPETS_ENCODER)"

    /// One encoder for the whole run (42 MB of weights), shared by tests running in parallel.
    static let encoder: Result<SentenceEncoder, any Error> = Result { try SentenceEncoder(contentsOf: path) }

    static func loaded() throws -> SentenceEncoder {
        do {
            return try encoder.get()
        } catch {
            Issue.record("cannot load the encoder (\(error)); `make encoder` builds it")
            throw error
        }
    }

    struct Reference: Decodable {
        struct Case: Decodable {
            let text: String
            let ids: [Int32]
            let vector: [Float]
        }
        let cases: [Case]
    }

    static let reference: Reference = {
        let url = packageRoot.appendingPathComponent("Tests/Fixtures/encoder/reference.json")
        // A missing or broken fixture is a defect of the repository: fail loudly.
        return try! JSONDecoder().decode(Reference.self, from: Data(contentsOf: url))
    }()

    static func cosine(_ a: [Float], _ b: [Float]) -> Float {
        let dot = zip(a, b).reduce(Float(0)) { $0 + $1.0 * $1.1 }
        let norms = (a.reduce(Float(0)) { $0 + $1 * $1 } * b.reduce(Float(0)) { $0 + $1 * $1 }).squareRoot()
        return dot / norms
    }
}
