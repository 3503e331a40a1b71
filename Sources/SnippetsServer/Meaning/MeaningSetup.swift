import SnippetsCore

/// Finds and loads the sentence encoder for meaning search, for `serve`, `mcp`, `ask` and `eval`.
public enum MeaningSetup {
    /// What every front end says when no encoder file is found.
    public static let offReason =
        "Meaning search is off: no encoder file (snippets-encoder.bin) was found beside snippets-lsp or in ~/.local/share/snippets-lsp/. `make` builds it; copy it beside the binary to match questions by meaning, not only by words."

    /// The most snippets one command-line ask embeds before answering (the rest on later runs, from the cache).
    public static let commandLineBudget = 1500

    /// Embeds `library` into `facts` now (at most `budget` snippets not in the cache), for a command that asks
    /// without a server; or records why meaning search is off.
    public static func prepare(
        _ facts: AskLibraryFacts, library: SnippetLibrary, index: TokenIndex?, environment: [String: String], budget: Int? = nil
    ) {
        let (service, reason) = service(environment: environment)
        guard let service else {
            facts.meaning.turnOff(because: reason ?? offReason)
            return
        }
        service.embedNow(library: library, facts: facts, index: index, budget: budget)
    }

    /// The meaning service for `environment`, or nil with the reason it is off.
    public static func service(environment: [String: String]) -> (service: MeaningService?, offReason: String?) {
        (nil, offReason)
    }
}
