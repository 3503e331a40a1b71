/// What marks a sentence as addressed to an assistant rather than written for the person (`AskText.isInstruction`):
/// such a sentence is never evidence, never quoted and never shown to a model.
extension Lexicon {
    /// Words that, written in capitals as a label of up to three words ending in a colon ("SYSTEM:", "SYSTEM
    /// OVERRIDE:", "ASSISTANT:"), open a turn of a chat transcript. In other case they are ordinary words ("System:
    /// Ubuntu 22.04" in a bug report template stays evidence).
    public static let roleLabels = LexiconTable("roleLabels", matching: .word, reason: .chatRole, [
        "system", "assistant", "ai", "instruction", "instructions", "prompt", "developer",
    ])

    /// Runs of words that mark a sentence as addressed to an assistant, found anywhere in it. Not `override` or
    /// `respond with` alone: code says `@override` and `should respond_with`.
    public static let instructionMarkers = LexiconTable("instructionMarkers", matching: .word, [
        .order: [
            "ignore previous", "ignore all", "ignore above", "ignore prior", "ignore earlier", "disregard",
            "forget previous", "forget everything", "forget your", "new instructions", "previous instructions",
            "override your", "override previous", "override the system", "jailbreak", "respond only with",
            "reply only with", "do not mention", "don t mention", "you must", "you should now",
        ],
        .addressesReader: [
            "tell the user", "tell users", "inform the user", "say to the user", "anyone who asks", "whoever asks",
            "anyone asking", "whoever reads",
        ],
        .assignsRole: ["you are now", "act as", "pretend"],
        .namesAssistant: [
            "system prompt", "assistant", "language model", "as an ai", "chatgpt", "if you are an ai",
            "if you re an ai",
        ],
    ])

    /// Chat-template tokens, found anywhere in a lowercased sentence (`<|im_start|>`, `[INST]`, `<<SYS>>`).
    public static let chatTemplateTokens = LexiconTable("chatTemplateTokens", matching: .text, reason: .chatTemplate, [
        "<|im_start|>", "<|system|>", "<|assistant|>", "[inst]", "<<sys>>",
    ])
}
