/// Questions the library should not answer, for measuring: meaning thresholds (`MeaningCalibration`) and a model's
/// standing (`QualificationProbes`). Each is used for a library only when no snippet holds its words; the order is
/// the order they are tried in.
extension Lexicon {
    /// Questions about topics outside any likely personal library, asked of every library by meaning calibration.
    /// Their texts are embedding cache keys: changing one re-embeds it.
    public static let offTopicQuestions = LexiconTable("offTopicQuestions", matching: .question, reason: .offTopic, [
        "how far is the moon from the earth", "what is the capital city of mongolia", "how do I tune a violin",
        "when do swallows migrate south", "how many moons does jupiter have", "what is the rule of offside in football",
        "how do I grow tomatoes in a greenhouse", "who painted the sistine chapel ceiling", "how long do elephants live",
        "what is the boiling point of nitrogen", "how do I knit a scarf", "which planet has the most rings",
        "how do volcanoes form", "what do koalas eat", "how do I wax a snowboard", "what is the tallest mountain in africa",
        "how do bees make honey", "when was the printing press invented", "how do I care for a bonsai tree",
        "what language is spoken in brazil", "how deep is the mariana trench", "why is the sky blue",
        "how do I play chess openings", "what is photosynthesis",
    ])

    /// Topics for qualification's questions the library should not answer ("Which snippet is about my ...?").
    public static let absentTopics = LexiconTable("absentTopics", matching: .question, reason: .offTopic, [
        "sourdough starter feeding", "tyre pressure for my bicycle", "knitting pattern for mittens",
        "orbital transfer window", "aquarium filter cleaning", "chess opening repertoire", "wedding toast for my sister",
        "passport renewal photo", "beekeeping hive inspection", "violin bow rosin", "sailing knot for mooring",
        "ski wax temperature", "bonsai pruning season", "volcano eruption forecast", "pottery kiln glaze",
        "horse saddle fitting", "lighthouse keeper rota", "glacier crevasse rescue",
    ])
}
