import SnippetsCore
import SnippetsEncoder

extension SentenceEncoder: SentenceEmbedder {}

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

    /// Why meaning search is off when the encoder file at `path` could not be read.
    static func unreadable(_ path: String?, _ error: any Error) -> String {
        "Meaning search is off: the encoder file \(path ?? "") could not be read (\(error)). Rebuild it with `make` and copy it beside snippets-lsp."
    }

    /// The meaning service for `environment`, or nil with the reason it is off. Finds the encoder file (see
    /// `EncoderFile.locate`) but does not read it: the service reads it on first use, off the request path.
    /// `SNIPPETS_ENCODER=off` turns meaning search off.
    public static func service(environment: [String: String]) -> (service: MeaningService?, offReason: String?) {
        if environment[EncoderFile.environmentVariable] == "off" {
            return (nil, "Meaning search is off: \(EncoderFile.environmentVariable)=off.")
        }
        guard let path = EncoderFile.locate(environment: environment) else { return (nil, offReason) }
        let service = MeaningService(
            encoderPath: path, cacheFolder: MeaningService.cacheFolder(environment: environment),
            load: { try SentenceEncoder(contentsOf: path) })
        return (service, nil)
    }
}
