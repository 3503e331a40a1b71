import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// The learning battery (Tests/Fixtures/learning): questions in other words than their snippets, unanswerable and
/// false-premise questions, asked with `snippets-lsp ask` before and after `snippets-lsp learn` taught the right
/// snippet for half of the paraphrased questions.
struct LearningBattery: Decodable {
    struct Paraphrased: Decodable {
        var question: String
        var snippet: String
        var learn: Bool
        var paraphrase: String?
    }

    var paraphrased: [Paraphrased]
    var unanswerable: [String]
    var falsePremise: [String]

    static let folder = packageRoot.appendingPathComponent("Tests/Fixtures/learning")

    static func load() throws -> LearningBattery {
        try JSONDecoder().decode(LearningBattery.self, from: Data(contentsOf: folder.appendingPathComponent("battery.json")))
    }
}

/// A fresh copy of a fixture library in a temporary folder (learning writes into the library).
func temporaryCopy(of library: URL) throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("learning-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    let copy = root.appendingPathComponent("library")
    try FileManager.default.copyItem(at: library, to: copy)
    return copy
}

/// What one ask said, as a user sees it.
struct AskOutcome: Equatable, CustomStringConvertible {
    var status: String
    var cited: [String]
    var answer: String

    var isDeclined: Bool { cited.isEmpty && (status == "noMatch") }
    var description: String { "\(status) \(cited)" }
}

@Suite(.serialized) struct LearningBatteryTests {
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("learning-state-\(UUID().uuidString)").path

    func ask(_ question: String, library: String) async throws -> AskOutcome {
        let run = await runCommand(["ask", question, "--library", library, "--json"], environment: ["XDG_STATE_HOME": state])
        #expect(run.status == 0, "\(question): \(run.err)")
        let json = try JSONValue.parse(Array(run.out.utf8))
        let answer = json["answer"]?.stringValue ?? ""
        let titles = json["citations"]?.arrayValue?.compactMap { $0["title"]?.stringValue } ?? []
        return AskOutcome(status: json["status"]?.stringValue ?? "", cited: titles, answer: answer)
    }

    /// Hard invariants of every answer: each cited title is a real snippet's exact title and appears in the
    /// answer; an answered result cites something; a declined one cites nothing.
    func checkInvariants(_ outcome: AskOutcome, question: String, titles: Set<String>) {
        for title in outcome.cited {
            #expect(titles.contains(title), "\(question): cited \"\(title)\", which is no snippet's title")
            #expect(outcome.answer.contains("\"\(title)\""), "\(question): the answer does not name \"\(title)\"")
        }
        if outcome.status == "answered" { #expect(!outcome.cited.isEmpty, "\(question): answered without citing") }
        if outcome.status == "noMatch" { #expect(outcome.cited.isEmpty, "\(question): noMatch but cites") }
    }

    @Test func learningFromHalfTheChoicesAnswersThoseAndTheirParaphrasesAndNothingElse() async throws {
        let battery = try LearningBattery.load()
        let library = try temporaryCopy(of: LearningBattery.folder.appendingPathComponent("library")).path
        let titles = Set(LibraryPaths(paths: [library], source: .flags).load().snippets.map(\.title))
        let learned = battery.paraphrased.filter(\.learn)
        let unlearned = battery.paraphrased.filter { !$0.learn }
        let declinable = battery.unanswerable + battery.falsePremise
        #expect(learned.count * 2 == battery.paraphrased.count)

        func askAll() async throws -> [String: AskOutcome] {
            var outcomes: [String: AskOutcome] = [:]
            let questions = battery.paraphrased.flatMap { [$0.question] + ($0.paraphrase.map { [$0] } ?? []) } + declinable
            for question in questions {
                let outcome = try await ask(question, library: library)
                checkInvariants(outcome, question: question, titles: titles)
                outcomes[question] = outcome
            }
            return outcomes
        }
        func right(_ item: LearningBattery.Paraphrased, _ question: String, _ outcomes: [String: AskOutcome]) -> Bool {
            outcomes[question]?.status == "answered" && outcomes[question]?.cited.first == item.snippet
        }
        func figures(_ label: String, _ outcomes: [String: AskOutcome]) -> String {
            let learnedRight = learned.filter { right($0, $0.question, outcomes) }.count
            let paraphrasesRight = learned.filter { right($0, $0.paraphrase ?? "", outcomes) }.count
            let unlearnedRight = unlearned.filter { right($0, $0.question, outcomes) }.count
            let unanswerableDeclined = battery.unanswerable.filter { outcomes[$0]?.isDeclined == true }.count
            let falseDeclined = battery.falsePremise.filter { outcomes[$0]?.isDeclined == true }.count
            return "\(label): learned-half questions answered right \(learnedRight)/\(learned.count), their paraphrases "
                + "\(paraphrasesRight)/\(learned.count), other half answered right \(unlearnedRight)/\(unlearned.count), "
                + "unanswerable declined \(unanswerableDeclined)/\(battery.unanswerable.count), false premise declined "
                + "\(falseDeclined)/\(battery.falsePremise.count)"
        }

        let before = try await askAll()
        print("learning battery " + figures("before", before))
        // The battery is only a test of learning if the library's own words did not answer these already.
        for item in battery.paraphrased {
            #expect(before[item.question]?.isDeclined == true, "already answered before learning: \(item.question)")
        }
        for question in declinable { #expect(before[question]?.isDeclined == true, "not declined before: \(question)") }

        for item in learned {
            let run = await runCommand(
                ["learn", item.question, "--snippet", item.snippet, "--library", library], environment: ["XDG_STATE_HOME": state])
            #expect(run.status == 0, "\(item.question): \(run.err)")
        }
        let file = try String(contentsOfFile: library + "/" + LearnedWords.fileName, encoding: .utf8)
        print("learning battery: \(LearnedWords.fileName) after learning:\n\(file)")

        let after = try await askAll()
        print("learning battery " + figures("after", after))
        for item in learned {
            #expect(right(item, item.question, after), "\(item.question) → \(after[item.question]!)")
            if let paraphrase = item.paraphrase { #expect(right(item, paraphrase, after), "\(paraphrase) → \(after[paraphrase]!)") }
            #expect(after[item.question]?.answer.contains("Matched words you used before:") == true)
        }
        for item in unlearned { #expect(after[item.question] == before[item.question], "changed: \(item.question)") }
        for question in declinable { #expect(after[question]?.isDeclined == true, "no longer declined: \(question) → \(after[question]!)") }

        // The snippet file itself was not touched, and check finds the learned file valid.
        let original = try Data(contentsOf: LearningBattery.folder.appendingPathComponent("library/office.code-snippets"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: library + "/office.code-snippets")) == original)
        let check = await runCommand(["check", "--library", library])
        #expect(check.status == 0 && check.out.hasSuffix("20 snippets in 1 file, 0 problems\n"), "\(check.out)")

        // Learning off: the learned words are ignored, and the questions are declined again.
        let off = await runCommand(
            ["ask", learned[0].question, "--library", library, "--no-learning", "--json"], environment: ["XDG_STATE_HOME": state])
        #expect(off.out.contains("\"status\":\"noMatch\""))
    }
}
