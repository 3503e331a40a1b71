import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// The project's own probe batteries (Tests/Fixtures/batteries/*/battery.json): each library loads whole, each
/// battery is what its README says it is, and every hard invariant holds over it, with no model and with a scripted
/// model that always knows the answer. Their figures are printed, not asserted: they were frozen before they were
/// first run, and are measured, never tuned to.
@Suite struct ProjectBatteryTests {
    static let folder = packageRoot.appendingPathComponent("Tests/Fixtures/batteries")
    /// The kinds of ../shared/eval/README.md.
    static let kinds: Set<String> = ["literal", "bridge", "multi", "unanswerable", "false_premise", "injection", "number"]

    /// Frozen batteries with fewer than a third paraphrases, and how many they have: `sre` was written with 16 of
    /// 59 (27%) and first run before the shortfall was seen; adding probes after a run would defeat its purpose
    /// (README.md). Issue 19's "a third" is met by `lab`, `plumber`, `teacher` and `vet`.
    static let paraphraseShortfall = ["sre": 16]

    static func batteryPaths() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { folder.appendingPathComponent($0).appendingPathComponent("battery.json").path }
            .filter { FileManager.default.fileExists(atPath: $0) }
    }

    static func load(_ path: String) throws -> (ProbeBattery, SnippetLibrary, raw: JSONValue) {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let battery = try JSONDecoder().decode(ProbeBattery.self, from: data)
        let root = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(battery.library).standardized
        return (battery, LibraryPaths(paths: [root.path], source: .flags).load(), try JSONValue.parse(Array(data)))
    }

    @Test func thereAreAtLeastTwoBatteries() {
        #expect(Self.batteryPaths().count >= 2, "\(Self.batteryPaths())")
    }

    @Test(arguments: batteryPaths())
    func theBatteryIsWellFormed(_ path: String) throws {
        let (battery, library, raw) = try Self.load(path)
        // Every snippet loads; a trigger two files define (as photographer's `second` is) is a trait of a real
        // library, not a load failure.
        let loadProblems = library.diagnostics.filter { ($0.severity == .error || $0.severity == .warning) && $0.code != .triggerConflict }
        #expect(loadProblems.isEmpty, "\(loadProblems.map(\.message))")
        #expect(library.snippets.count >= 60)
        #expect(battery.probes.count >= 30)
        #expect(Set(battery.probes.map(\.id)).count == battery.probes.count, "probe ids repeat")
        #expect(Set(battery.probes.map(\.kind)) == Self.kinds, "every kind of ../shared/eval, and only those")
        // An expected title names exactly one snippet, or the battery measures nothing.
        for probe in battery.probes {
            for title in probe.expect {
                #expect(library.snippets.filter { $0.title == title }.count == 1, "\(probe.id): \"\(title)\"")
            }
        }
        // A third of the questions use other words than their snippet's (but where a frozen battery fell short, it
        // is recorded exactly); a few have typos.
        let tags = raw["probes"]?.arrayValue?.map { probe in probe["tags"]?.arrayValue?.compactMap(\.stringValue) ?? [] } ?? []
        let paraphrases = tags.filter { $0.contains("paraphrase") }.count
        let name = URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent
        if let short = Self.paraphraseShortfall[name] {
            #expect(paraphrases == short, "\(name) was frozen with \(short) paraphrases")
        } else {
            #expect(paraphrases * 3 >= battery.probes.count)
        }
        #expect(tags.filter { $0.contains("typo") }.count >= 3)
        // A figure a probe asks for is in one of its expected snippets, as written.
        for probe in raw["probes"]?.arrayValue ?? [] {
            guard let figure = probe["figure"]?.stringValue else { continue }
            let expected = (probe["expect"]?.arrayValue ?? []).compactMap(\.stringValue)
            let bodies = library.snippets.filter { expected.contains($0.title) }.map { $0.body + ($0.description ?? "") }
            #expect(bodies.contains { $0.contains(figure) }, "\(probe["id"]?.stringValue ?? "?"): \(figure)")
        }
    }

    @Test(arguments: batteryPaths())
    func everyHardInvariantHoldsWithoutAModel(_ path: String) async throws {
        let run = await runTool(["eval", path])
        print(run.out)
        #expect(run.status == 0, "\(run.err)")
        let json = await runTool(["eval", path, "--json"])
        let report = try JSONValue.parse(Array(json.out.utf8))
        #expect(report["invariantsHold"] == true)
        let overall = try #require(report["measures"]?["overall"])
        #expect(overall["grounded"] == overall["probes"])
        #expect(overall["inventedTitles"] == 0 && overall["unsupportedNumbers"] == 0 && overall["leaks"] == 0)
    }

    @Test(arguments: batteryPaths())
    func everyHardInvariantHoldsWithAModelThatKnowsTheAnswers(_ path: String) async throws {
        let (battery, library, _) = try Self.load(path)
        let ideal = AskAgreementBatteryTests.IdealModel(
            expectations: Dictionary(battery.probes.map { ($0.question, $0.expect) }, uniquingKeysWith: { a, _ in a }))
        let evaluation = try await AskEvaluation.run(battery, library: library, model: ideal)
        print("\(path) with a scripted model that always picks the expected snippets:\n\(evaluation.text())")
        #expect(evaluation.overall.invariantsHold)
    }
}
