import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// The shared battery through the whole pipeline with scripted models: an ideal one raises the figures, and no bad
/// one lowers them below those without a model.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: batteryPath), "../shared/eval is absent"))
struct AskAgreementBatteryTests {
    static func battery() throws -> (ProbeBattery, SnippetLibrary) {
        let battery = try JSONDecoder().decode(ProbeBattery.self, from: Data(contentsOf: URL(fileURLWithPath: batteryPath)))
        let root = URL(fileURLWithPath: batteryPath).deletingLastPathComponent().appendingPathComponent(battery.library).standardized
        return (battery, LibraryPaths(paths: [root.path], source: .flags).load())
    }

    /// A model that knows the answers: it searches the words of the expected titles and cites exactly them.
    struct IdealModel: AskModel {
        let expectations: [String: [String]]
        func searchWords(question: String) async throws(AskModelError) -> [String] {
            Array(Set((expectations[question] ?? []).flatMap { Tokenizer.tokens(in: $0) }.filter { $0.count > 2 })).sorted()
        }
        func pick(_ request: PickRequest) async throws(AskModelError) -> PickReply {
            let expected = expectations[request.question] ?? []
            let cited = request.candidates.filter { expected.contains($0.title) }.map(\.id)
            return PickReply(status: cited.isEmpty ? .noneFit : .answered, cited: cited)
        }
    }

    /// A model that is wrong in one way every time.
    struct BadModel: AskModel {
        var words: [String] = []
        let choose: @Sendable (PickRequest) -> PickReply
        func searchWords(question: String) async throws(AskModelError) -> [String] { words }
        func pick(_ request: PickRequest) async throws(AskModelError) -> PickReply { choose(request) }
    }

    static let badModels: [(name: String, model: BadModel)] = [
        ("finds none", BadModel { _ in PickReply(status: .noneFit, cited: []) }),
        ("cites the last candidate", BadModel { PickReply(status: .answered, cited: [$0.candidates.last!.id], note: .bestFirst) }),
        ("cites every candidate", BadModel { PickReply(status: .answered, cited: $0.candidateIDs, note: .eachCoversPart) }),
        ("adds common words, cites the second", BadModel(words: ["client", "email", "invoice", "address"]) {
            PickReply(status: .answered, cited: [$0.candidates[min(1, $0.candidates.count - 1)].id])
        }),
    ]

    /// `measure` of `kind` in `evaluation`.
    static func measures(_ evaluation: AskEvaluation, _ kind: String) -> EvalMeasures {
        evaluation.measures.first { $0.kind == kind }?.measures ?? EvalMeasures()
    }

    /// Whether precision `a` (correct of cited) is at least precision `b`; no citations at all is no precision to lose.
    static func precision(_ a: EvalMeasures, atLeast b: EvalMeasures) -> Bool {
        a.cited == 0 || a.citedCorrect * max(b.cited, 1) >= b.citedCorrect * a.cited
    }

    @Test func anIdealModelRaisesAnswerRecallOnBridgeQuestions() async throws {
        let (battery, library) = try Self.battery()
        let plain = try await AskEvaluation.run(battery, library: library)
        let ideal = try await AskEvaluation.run(
            battery, library: library,
            model: IdealModel(expectations: Dictionary(battery.probes.map { ($0.question, $0.expect) }, uniquingKeysWith: { a, _ in a })))
        print(plain.text())
        print(ideal.text())
        #expect(ideal.overall.invariantsHold)
        #expect(ideal.overall.expectedCited > plain.overall.expectedCited)
        #expect(Self.measures(ideal, "bridge").expectedCited > Self.measures(plain, "bridge").expectedCited)
        #expect(Self.precision(ideal.overall, atLeast: plain.overall))
        #expect(ideal.overall.abstained == ideal.overall.abstentionProbes)
    }

    @Test func noBadModelMakesAnAnswerWorseThanNoModel() async throws {
        let (battery, library) = try Self.battery()
        let plain = try await AskEvaluation.run(battery, library: library)
        for (name, model) in Self.badModels {
            let bad = try await AskEvaluation.run(battery, library: library, model: model)
            #expect(bad.overall.invariantsHold, "\(name)\n\(bad.text())")
            #expect(bad.overall.expectedCited >= plain.overall.expectedCited, "\(name): answer recall fell\n\(bad.text())")
            #expect(Self.precision(Self.measures(bad, "literal"), atLeast: Self.measures(plain, "literal")), "\(name): literal precision fell\n\(bad.text())")
            // Where the question's own words named snippets, the answer names the same ones.
            for (before, after) in zip(plain.outcomes, bad.outcomes) where !before.cited.isEmpty {
                #expect(after.cited == before.cited, "\(name), \(before.id): \(before.cited) became \(after.cited)")
            }
        }
    }
}

