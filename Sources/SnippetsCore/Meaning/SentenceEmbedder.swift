/// Turns sentences into unit vectors whose dot product says how near two texts are in meaning.
///
/// The core names only this protocol; the server gives it the encoder built into the binary (`SnippetsEncoder`),
/// tests give it doubles. An embedder only proposes: a meaning match is never evidence (see `MeaningPick`).
public protocol SentenceEmbedder: Sendable {
    /// What distinguishes this embedder's vectors from another's (a hash of its weights): cached vectors are kept
    /// per identity, so a different encoder file never reuses another's vectors.
    var identity: String { get }
    /// The length of every vector.
    var dimension: Int { get }
    /// One L2-normalised vector per text, in order. Deterministic: the same text gives the same vector.
    func embed(_ texts: [String]) -> [[Float]]
}
