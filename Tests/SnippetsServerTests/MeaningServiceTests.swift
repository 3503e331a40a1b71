import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// A stand-in encoder: a text's vector counts its words by their first letter, so different titles differ and the
/// same text always gives the same vector. Counts what it encodes.
final class LetterEmbedder: SentenceEmbedder, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var encoded: Int { lock.withLock { count } }
    var identity: String { "letters-1" }
    var dimension: Int { 27 }

    func embed(_ texts: [String]) -> [[Float]] {
        lock.withLock { count += texts.count }
        return texts.map { text in
            var vector = [Float](repeating: 0, count: dimension)
            vector[26] = 0.5
            for word in text.lowercased().split(whereSeparator: { !$0.isLetter }) {
                guard let first = word.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { continue }
                vector[Int(first.value) - 97] += 1
            }
            let length = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return vector.map { $0 / length }
        }
    }
}

/// A library of `count` snippets with two-word titles made of distinct words.
private func letterLibrary(_ count: Int, edited: Bool = false) -> SnippetLibrary {
    let uri = "file:///lib/notes.code-snippets"
    let words = ["apple", "brick", "cloud", "dune", "ember", "fjord", "grove", "harbor", "inlet", "jetty", "kiln", "lagoon", "mesa",
                 "nook", "orchard", "pier", "quarry", "ridge", "summit", "tundra", "upland", "vale", "wharf", "yard", "zenith"]
    let snippets = (0..<count).map { number in
        let title = "\(words[number % words.count]) \(words[(number * 7 + 3) % words.count])\(edited && number == 0 ? " revised" : "")"
        return Snippet(
            id: SnippetID(fileURI: uri, key: title), title: title, triggers: ["t\(number)"], description: nil,
            body: "Notes about \(title).", scopes: [],
            location: SourceLocation(
                uri: uri, range: SourceRange(start: SourcePosition(line: number + 1, asciiColumn: 2), end: SourcePosition(line: number + 1, asciiColumn: 9))),
            format: .vscode)
    }
    return SnippetLibrary(files: [SnippetFile(uri: uri, path: "/lib/notes.code-snippets", format: .vscode, snippets: snippets)], searchedPaths: ["/lib"])
}

@Suite("Meaning service: what is kept between runs")
struct MeaningServiceTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("meaning-service-\(UUID().uuidString)").path

    @Test func aSecondRunOverTheSameLibraryEmbedsNothingAndTakesTheKeptCalibration() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let library = letterLibrary(24)
        let first = LetterEmbedder()
        let facts = AskLibraryFacts(library: library)
        MeaningService(embedder: first, cacheFolder: folder).embedNow(library: library, facts: facts)
        #expect(facts.meaning.status.state == .ready)
        let calibrated = facts.meaning.thresholds
        #expect(calibrated.measured != nil)

        // The kept calibration is what a second run uses: change it on disk, and the second run reads the change
        // rather than calibrating again.
        let keptPath = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix(".calibrations") })
        let path = folder + "/" + keptPath
        var kept = try JSONDecoder().decode(MeaningService.KeptCalibrations.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(kept.entries.count == 1)
        kept.entries[0].thresholds.margin = 0.0777
        try JSONEncoder().encode(kept).write(to: URL(fileURLWithPath: path))

        let second = LetterEmbedder()
        let again = AskLibraryFacts(library: library)
        MeaningService(embedder: second, cacheFolder: folder).embedNow(library: library, facts: again)
        #expect(second.encoded == 0)
        #expect(again.meaning.thresholds.margin == 0.0777)

        // An edited library is another revision: calibrated anew, and both kept.
        let edited = letterLibrary(24, edited: true)
        let third = AskLibraryFacts(library: edited)
        MeaningService(embedder: LetterEmbedder(), cacheFolder: folder).embedNow(library: edited, facts: third)
        #expect(third.meaning.thresholds.margin != 0.0777)
        #expect(third.meaning.thresholds.measured != nil)
        let after = try JSONDecoder().decode(MeaningService.KeptCalibrations.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(after.entries.count == 2)
    }

    @Test func aCommandLineBudgetEmbedsPartOfTheLibraryAndTheNextRunGoesOn() {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let library = letterLibrary(200)
        let facts = AskLibraryFacts(library: library)
        // No time at all: one batch, then the budget is spent.
        MeaningService(embedder: LetterEmbedder(), cacheFolder: folder).embedNow(library: library, facts: facts, budget: .zero)
        let status = facts.meaning.status
        #expect(status.state == .embedding)
        #expect(status.embedded > 0 && status.embedded < 200)
        #expect(!facts.meaning.isCalibrated)
        // The answer says how much meaning search covered.
        #expect(AskAnswerText.meaningLine(status)?.contains("covered \(status.embedded) of 200 snippets") == true)

        let next = AskLibraryFacts(library: library)
        MeaningService(embedder: LetterEmbedder(), cacheFolder: folder).embedNow(library: library, facts: next, budget: .zero)
        #expect(next.meaning.status.embedded > status.embedded)
    }

    @Test func theAnswerSaysWhyMeaningIsOffUnlessThePersonTurnedItOff() {
        #expect(AskAnswerText.meaningLine(AskMeaning(state: .off, embedded: 0, total: 0, note: MeaningSetup.offReason)) == MeaningSetup.offReason)
        #expect(AskAnswerText.meaningLine(AskMeaning(state: .off, embedded: 0, total: 0, note: MeaningSetup.turnedOffReason)) == nil)
        #expect(AskAnswerText.meaningLine(AskMeaning(state: .ready, embedded: 5, total: 5)) == nil)
    }
}
