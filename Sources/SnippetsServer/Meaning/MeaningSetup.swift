import Foundation
import SnippetsCore
import SnippetsEncoder

extension SentenceEncoder: SentenceEmbedder {}

/// Finds and loads the sentence encoder for meaning search, for `serve`, `mcp`, `ask` and `eval`.
public enum MeaningSetup {
    /// What every front end says when no encoder file is found.
    public static let offReason =
        "Meaning search is off: no encoder file (snippets-encoder.bin) was found beside snippets-lsp or in ~/.local/share/snippets-lsp/. `make` builds it; copy it beside the binary to match questions by meaning, not only by words."

    /// Why meaning search is off when the person turned it off.
    public static let turnedOffReason = "Meaning search is off: \(EncoderFile.environmentVariable)=off."

    /// How long one command-line ask spends embedding snippets not in the cache before it answers (the rest on later
    /// runs, from the cache; the language server embeds a whole library in the background). Encoding costs about
    /// 10 ms a snippet, so a first ask over thousands of snippets would otherwise wait a minute.
    public static let commandLineBudget = Duration.seconds(3)

    /// Embeds `library` into `facts` now (for at most `budget`; nil: all of it), for a command that asks without a
    /// server; or records why meaning search is off.
    public static func prepare(
        _ facts: AskLibraryFacts, library: SnippetLibrary, environment: [String: String], budget: Duration? = nil
    ) {
        let (service, reason) = service(environment: environment)
        guard let service else {
            facts.meaning.turnOff(because: reason ?? offReason)
            return
        }
        service.embedNow(library: library, facts: facts, budget: budget)
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
            return (nil, turnedOffReason)
        }
        // A file the person named is the one used, or none: falling back elsewhere would hide a typo.
        var isFolder: ObjCBool = false
        if let named = environment[EncoderFile.environmentVariable], !named.isEmpty,
            !FileManager.default.fileExists(atPath: named, isDirectory: &isFolder) || isFolder.boolValue
        {
            return (nil, "Meaning search is off: \(EncoderFile.environmentVariable) names \(named), which is not a file. Point it at snippets-encoder.bin (`make` builds it), or unset it.")
        }
        guard let path = EncoderFile.locate(environment: environment) else { return (nil, offReason) }
        let service = MeaningService(
            encoderPath: path, cacheFolder: MeaningService.cacheFolder(environment: environment),
            load: { try SentenceEncoder(contentsOf: path) })
        return (service, nil)
    }
}
