/// When a meaning match alone may name a snippet: its similarity to the question is at least `similarity`, and it
/// leads the next snippet by at least `margin`. A similarity alone abstains badly (a false premise shares the topic
/// of a real snippet: "neuter a ferret" is near "rabbit neutering"); a clear lead over the runner-up is what tells a
/// paraphrase of one snippet from a question near several or near none.
///
/// Not constants tuned per question: `MeaningCalibration` sets them from probes made from the library itself.
public struct MeaningThresholds: Hashable, Sendable, Codable {
    public var similarity: Float
    public var margin: Float
    /// The least similarity of a snippet a declining answer names as near in meaning (`AskPipeline.suggestions`):
    /// above nine in ten questions about things no library of a person holds. Nil in a calibration kept before it
    /// was measured: then `nearness` is the default's.
    public var measuredNearness: Float?
    /// What the calibration measured, for `doctor`; nil for the defaults.
    public var measured: MeaningCalibration.Figures?

    public init(similarity: Float, margin: Float, nearness: Float? = nil, measured: MeaningCalibration.Figures? = nil) {
        self.similarity = similarity
        self.margin = margin
        self.measuredNearness = nearness
        self.measured = measured
    }

    /// The least similarity of a snippet named as near in meaning when nothing is named as the answer.
    public var nearness: Float { measuredNearness ?? Self.defaultNearness }

    /// Until a library is calibrated: below the anchor's similarity, as the off-topic questions' best matches sit
    /// over the ten batteries (their 90th percentile is about 0.25).
    static let defaultNearness: Float = 0.3

    /// Until a library is calibrated (or when it is too small to calibrate): the anchor measured over ten batteries
    /// (a lead of 0.13 answered 147 of 321 answerable probes with one wrong), a little below it for similarity.
    public static let defaults = MeaningThresholds(similarity: 0.35, margin: 0.13)

    /// Whether a best match of `best` followed by `runnerUp` (nil: no other snippet) clears both thresholds.
    public func admits(best: Float, runnerUp: Float?) -> Bool {
        best >= similarity && best - (runnerUp ?? 0) >= margin
    }
}
