import SnippetsCore

/// A stand-in for the sentence encoder: each word belongs to a concept (its synonyms share one), and a text's vector
/// is its concepts' counts plus a small constant, normalised. Whatever it says, a meaning match only proposes: tests
/// that use it check what the code does with a proposal or a rank, not how good the encoder is (the encoder's own
/// tests do that). `tokens` splits a text into the words looked up in `concepts`.
public struct ConceptEmbedder: SentenceEmbedder {
    public let concepts: [[String]]
    let tokens: @Sendable (String) -> [String]
    public var identity: String { "concepts-\(concepts.count)" }
    public var dimension: Int { concepts.count + 1 }

    public init(concepts: [[String]], tokens: @escaping @Sendable (String) -> [String]) {
        self.concepts = concepts
        self.tokens = tokens
    }

    public func embed(_ texts: [String]) -> [[Float]] {
        texts.map { text in
            var vector = [Float](repeating: 0, count: dimension)
            vector[concepts.count] = 0.3
            for word in tokens(text) {
                for (index, concept) in concepts.enumerated() where concept.contains(word) { vector[index] += 1 }
            }
            let length = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return vector.map { $0 / length }
        }
    }
}
