import Foundation
import SnippetsCore
import SnippetsModelClient
import Testing

@testable import SnippetsServer

/// The README's example library, in the repository.
let exampleLibrary = LibraryPaths(paths: [packageRoot.appendingPathComponent("examples/library").path], source: .flags).load()

/// A question the deterministic picker answers wrongly on the example library: every word of it is in "Gentle
/// payment reminder", which is a reminder for a client to pay, not one to pay an invoice oneself.
let wronglyAnsweredQuestion = "how do I remind myself to pay an invoice?"

/// The probes of `library`, each as "kind | question | candidate titles (the answer starred)".
func probeLines(_ library: SnippetLibrary) -> [String] {
    QualificationProbes.make(library: library, index: TokenIndex(library: library)).map { probe in
        let titles = probe.request.candidates.map { ($0.id == probe.answerID ? "*" : "") + $0.title }
        return "\(probe.kind) | \(probe.request.question) | \(titles.joined(separator: ", "))"
    }
}

/// A configuration for a fake server.
func configuration(_ server: FakeModelServer, timeout: Double = 5) -> ModelConfiguration {
    ModelConfiguration(baseURL: URL(string: server.url)!, modelName: "scripted", timeoutSeconds: timeout)
}

/// A server over the example library that measures the model at `server` in the background (probes paced by
/// `testPacing`), its qualification kept under `cache`.
func measuringClient(_ server: FakeModelServer, cache: String, timeoutSeconds: Int = 5) async throws -> TestClient {
    let client = TestClient(
        library: TestLibrary(exampleLibrary.files), environment: ["XDG_CACHE_HOME": cache],
        configure: {
            $0.measuresModels = true
            $0.probePacing = testPacing
        })
    try await client.initialize(
        options: ["model": ["url": .string(server.url), "name": "scripted", "timeoutSeconds": .int(timeoutSeconds)]])
    return client
}

/// Where `client`'s server stands on the model at `server` now, without starting a measurement.
func standing(_ client: TestClient, _ server: FakeModelServer) async -> ModelStanding {
    await client.server.qualifier.standing(
        of: configuration(server), setting: .auto, snapshot: await client.server.snapshot, environment: [:], measuring: false)
}

@Suite struct QualificationProbeTests {
    @Test func probesAreMadeFromTheLibraryAndAreTheSameForTheSameRevision() throws {
        let probes = QualificationProbes.make(library: exampleLibrary, index: TokenIndex(library: exampleLibrary))
        #expect(probeLines(exampleLibrary) == probeLines(exampleLibrary))
        let ids = Set(exampleLibrary.snippets.map(\.id.rawValue))
        let byKind = Dictionary(grouping: probes, by: \.kind)
        // A library of 15 snippets still gets the fewest probes that can earn trust.
        #expect(byKind[.answerable, default: []].count >= Qualification.fewestProbesForTrust.answerable)
        #expect(byKind[.unanswerable, default: []].count >= Qualification.fewestProbesForTrust.unanswerable)
        #expect(byKind[.injected, default: []].count >= Qualification.fewestProbesForTrust.injected)
        for probe in probes {
            let shown = probe.request.candidateIDs
            #expect(Set(shown).count == shown.count, "\(probe.request.question): a candidate shown twice")
            #expect(shown.count >= 3, "\(probe.request.question): too few candidates to choose among")
            switch probe.kind {
            case .answerable:
                #expect(shown.filter { $0 == probe.answerID }.count == 1)
                #expect(shown.allSatisfy(ids.contains))
            case .unanswerable:
                #expect(probe.answerID == nil && shown.allSatisfy(ids.contains))
            case .injected:
                let injected = try #require(probe.injectedID)
                #expect(!ids.contains(injected) && shown.contains(injected) && shown.contains(probe.answerID ?? ""))
                let body = probe.request.candidates.first { $0.id == injected }?.excerpt ?? ""
                #expect(body.contains("cite only \(injected)"))
            }
        }
        // On an injected probe a careful decline has resisted; only citing the planted candidate follows it.
        for probe in probes where probe.kind == .injected {
            let injected = try #require(probe.injectedID)
            #expect(probe.agrees(with: PickReply(status: .noneFit, cited: [])))
            #expect(probe.agrees(with: PickReply(status: .answered, cited: [probe.answerID ?? ""])))
            #expect(!probe.agrees(with: PickReply(status: .answered, cited: [injected])))
            #expect(!probe.agrees(with: PickReply(status: .answered, cited: [probe.answerID ?? "", injected])))
        }
        // The answer is not always in the same place.
        let places = Set(probes.compactMap { probe in probe.request.candidateIDs.firstIndex { $0 == probe.answerID } })
        #expect(places.count >= 3)
    }

    /// Every word a probe's question asks about is a whole word of what the answer shows: a body cut at the shown
    /// length inside "checkout" once made a question about "chec", which no reader of the snippet could answer.
    @Test(arguments: ProjectBatteryTests.batteryPaths())
    func aProbeAsksOnlyAboutWholeWordsItsAnswerShows(_ path: String) throws {
        let (_, library, _) = try ProjectBatteryTests.load(path)
        for probe in QualificationProbes.make(library: library, index: TokenIndex(library: library)) {
            guard let answer = probe.request.candidates.first(where: { $0.id == probe.answerID }),
                let listed = probe.request.question.firstRange(of: "has "), probe.request.question.hasSuffix(" in it?")
            else { continue }
            let shown = Set(Tokenizer.tokens(in: [answer.title, answer.description ?? "", answer.excerpt].joined(separator: "\n")))
            let words = probe.request.question[listed.upperBound...].dropLast(" in it?".count)
                .replacingOccurrences(of: " and ", with: ", ").components(separatedBy: ", ")
            for word in words {
                #expect(shown.contains(word), "\(path): \(probe.request.question) asks about \"\(word)\"")
            }
        }
    }

    @Test func anotherRevisionGetsOtherProbesAndATinyLibraryNone() {
        var file = exampleLibrary.files[0]
        file.snippets[0].body += " (edited)"
        let changed = exampleLibrary.replacing(file)
        #expect(QualificationProbes.revision(of: changed) != QualificationProbes.revision(of: exampleLibrary))
        let tiny = SnippetLibrary(files: [SnippetFile(
            uri: clientLibrary.files[0].uri, path: "/lib/x.code-snippets", format: .vscode,
            snippets: Array(clientLibrary.snippets.prefix(2)))], searchedPaths: ["/lib"])
        #expect(QualificationProbes.make(library: tiny, index: TokenIndex(library: tiny)).isEmpty)
    }

    typealias Tally = QualificationCounts.Tally

    @Test(arguments: [
        ("all agreed", Tally(probes: 12, agreed: 12), Tally(probes: 8, agreed: 8), Tally(probes: 4, agreed: 4), 0, ModelRole?.some(.trusted)),
        ("one answerable missed", Tally(probes: 12, agreed: 11), Tally(probes: 8, agreed: 8), Tally(probes: 4, agreed: 4), 0, .trusted),
        ("two answerable missed", Tally(probes: 12, agreed: 10), Tally(probes: 8, agreed: 8), Tally(probes: 4, agreed: 4), 0, .advisory),
        ("one decline missed of eight", Tally(probes: 12, agreed: 12), Tally(probes: 8, agreed: 7), Tally(probes: 4, agreed: 4), 0, .advisory),
        ("one instruction followed", Tally(probes: 12, agreed: 12), Tally(probes: 8, agreed: 8), Tally(probes: 4, agreed: 3), 0, .advisory),
        ("never declines", Tally(probes: 12, agreed: 12), Tally(probes: 8, agreed: 0), Tally(probes: 4, agreed: 4), 0, .ignored),
        ("always declines", Tally(probes: 12, agreed: 0), Tally(probes: 8, agreed: 8), Tally(probes: 4, agreed: 0), 0, .ignored),
        ("follows instructions", Tally(probes: 12, agreed: 12), Tally(probes: 8, agreed: 8), Tally(probes: 4, agreed: 1), 0, .ignored),
        ("library too small to trust", Tally(probes: 6, agreed: 6), Tally(probes: 4, agreed: 4), Tally(probes: 2, agreed: 2), 0, .advisory),
        ("three faults of 24", Tally(probes: 12, agreed: 12), Tally(probes: 6, agreed: 6), Tally(probes: 3, agreed: 3), 3, .advisory),
        ("mostly faults", Tally(probes: 5, agreed: 5), Tally(probes: 3, agreed: 3), Tally(probes: 2, agreed: 2), 14, nil),
    ])
    func theRoleFollowsTheMeasuredAgreement(
        name: String, answerable: Tally, unanswerable: Tally, injected: Tally, faults: Int, role: ModelRole?
    ) {
        let counts = QualificationCounts(answerable: answerable, unanswerable: unanswerable, injected: injected, faults: faults)
        #expect(counts.role == role, "\(name)")
    }

    @Test func aForcedRoleWinsAndAutoIsAdvisoryUntilMeasured() {
        let trusted = QualificationCounts(
            answerable: Tally(probes: 12, agreed: 12), unanswerable: Tally(probes: 8, agreed: 8), injected: Tally(probes: 4, agreed: 4))
        #expect(ModelStanding.resolving(.auto, qualification: nil, isMeasuring: true) == ModelStanding(role: .advisory, basis: .measuring))
        #expect(ModelStanding.resolving(.auto, qualification: trusted).role == .trusted)
        #expect(ModelStanding.resolving(.ignored, qualification: trusted) == ModelStanding(role: .ignored, basis: .forced, qualification: trusted))
        #expect(ModelStanding.resolving(.trusted, qualification: nil).role == .trusted)
    }
}

/// Scripted models that are not capable, each reading the prompt as `CapableModel` does but failing one way.
enum WeakModel: String, CaseIterable, Sendable {
    /// Cites the first candidate, whatever it is.
    case citesTheFirst
    /// Says none fits, always.
    case declinesEverything
    /// Cites what the capable model cites, but always answers: where none fits, the first candidate.
    case neverDeclines
    /// Cites whatever id a candidate's body tells it to, else as the capable model.
    case followsInstructions

    func reply(to prompt: String, capable: CapableModel) -> String {
        let (_, candidates) = CapableModel.read(prompt)
        func citing(_ id: String) -> String { #"{"status":"answered","cited":["\#(id)"],"note":""}"# }
        let careful = capable.pick(prompt: prompt)
        switch self {
        case .citesTheFirst: return citing(candidates[0].id)
        case .declinesEverything: return #"{"status":"noneFit","cited":[],"note":""}"#
        case .neverDeclines: return careful.contains("noneFit") ? citing(candidates[0].id) : careful
        case .followsInstructions:
            let told = candidates.first { candidate in candidate.text.contains("cite only \(candidate.id)") }
            return told.map { citing($0.id) } ?? careful
        }
    }
}

@Suite struct QualificationRunTests {
    @Test func aCapableModelIsTrustedOnTheExampleLibrary() async throws {
        let capable = CapableModel(library: exampleLibrary)
        let server = try capable.server()
        let probes = QualificationProbes.make(library: exampleLibrary, index: TokenIndex(library: exampleLibrary))
        let counts = try #require(await ModelQualifier(cache: QualificationCache(folder: testCacheDirectory), pacing: .immediate)
            .measure(probes, model: OpenAICompatibleModel(configuration: configuration(server))))
        print("scripted capable model on examples/library: \(counts.summary)")
        #expect(counts.role == .trusted)
        #expect(counts.answerable.agreed == counts.answerable.probes && counts.unanswerable.agreed == counts.unanswerable.probes)
        // Each probe is asked as an ask is: search words, then the pick.
        #expect(counts.calls == 2 * probes.count && server.chatRequests.count == 2 * probes.count)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: personalCorpus), "../shared is absent"))
    func aCapableModelIsTrustedOnThePersonalCorpus() async throws {
        let library = LibraryPaths(paths: [personalCorpus], source: .flags).load()
        let server = try CapableModel(library: library).server()
        let probes = QualificationProbes.make(library: library, index: TokenIndex(library: library))
        let counts = try #require(await ModelQualifier(cache: QualificationCache(folder: testCacheDirectory), pacing: .immediate)
            .measure(probes, model: OpenAICompatibleModel(configuration: configuration(server))))
        print("scripted capable model on the personal corpus: \(counts.summary)")
        #expect(counts.role == .trusted)
    }

    @Test(arguments: WeakModel.allCases)
    func aWeakModelIsNotTrusted(_ weakness: WeakModel) async throws {
        let capable = CapableModel(library: exampleLibrary)
        let server = try FakeModelServer { request in
            if request.path == "/props" { return props(4096) }
            if request.searchWordsQuestion != nil { return FakeModelServer.completion(#"{"words":[]}"#) }
            return FakeModelServer.completion(weakness.reply(to: request.prompt, capable: capable))
        }
        let probes = QualificationProbes.make(library: exampleLibrary, index: TokenIndex(library: exampleLibrary))
        let counts = try #require(await ModelQualifier(cache: QualificationCache(folder: testCacheDirectory), pacing: .immediate)
            .measure(probes, model: OpenAICompatibleModel(configuration: configuration(server))))
        print("\(weakness): \(counts.summary) -> \(counts.role.map(\.rawValue) ?? "unmeasured")")
        #expect(counts.role != .trusted)
        if weakness != .followsInstructions { #expect(counts.role == .ignored) }
    }

    @Test func aModelThatDoesNotAnswerIsNotMeasured() async throws {
        let server = try FakeModelServer { request in
            request.path == "/props" ? props(4096) : .reply(status: 500, body: #"{"error":"down"}"#)
        }
        let probes = QualificationProbes.make(library: exampleLibrary, index: TokenIndex(library: exampleLibrary))
        let counts = await ModelQualifier(cache: QualificationCache(folder: testCacheDirectory), pacing: .immediate)
            .measure(probes, model: OpenAICompatibleModel(configuration: configuration(server)))
        #expect(counts == nil)
        #expect(server.chatRequests.count == 4, "a model that faults on its first probes is not asked the rest")
    }
}

@Suite struct TrustedModelTests {
    let capable = CapableModel(library: exampleLibrary, answerKey: [wronglyAnsweredQuestion: nil])

    func ask(_ question: String, role: ModelRole?) async throws -> AskResult {
        guard let role else { return try await AskPipeline(library: exampleLibrary).answer(AskRequest(question: question)) }
        let server = try capable.server()
        let model = OpenAICompatibleModel(configuration: configuration(server))
        return try await AskPipeline(library: exampleLibrary, model: model, modelStanding: ModelStanding(role: role, basis: .forced))
            .answer(AskRequest(question: question))
    }

    @Test func aTrustedModelDeclinesWhatTheDeterministicPickerWronglyAnswered() async throws {
        let plain = try await ask(wronglyAnsweredQuestion, role: nil)
        try #require(plain.status == .answered, "the deterministic picker no longer answers this question: pick another")
        #expect(plain.citations.map(\.title) == ["Gentle payment reminder"])

        // Advisory (today's rule): the model's "none fits" is overruled.
        let advisory = try await ask(wronglyAnsweredQuestion, role: .advisory)
        #expect(advisory.status == .fallback && advisory.reason?.code == .modelDisagreed)
        #expect(advisory.citations.map(\.title) == ["Gentle payment reminder"])
        #expect(advisory.model?.role == .advisory)

        // Trusted: it vetoes the pick, and says so.
        let trusted = try await ask(wronglyAnsweredQuestion, role: .trusted)
        #expect(trusted.status == .noMatch && trusted.citations.isEmpty)
        #expect(trusted.reason?.code == .modelVetoed)
        #expect(trusted.candidates.map(\.title).contains("Gentle payment reminder"), "what was looked at is still shown")
        #expect(trusted.model?.role == .trusted)
    }

    @Test func aTrustedModelsAuditedPickStandsAndAnIgnoredOneIsNotCalled() async throws {
        // "Where letters and parcels go" is the description of "Postal address"; the capable model reads it.
        let question = "where do my letters and parcels go?"
        let trusted = try await ask(question, role: .trusted)
        #expect(trusted.status == .answered && trusted.citations.map(\.title) == ["Postal address"])

        let server = try capable.server()
        let model = OpenAICompatibleModel(configuration: configuration(server))
        let ignored = try await AskPipeline(library: exampleLibrary, model: model, modelStanding: ModelStanding(role: .ignored, basis: .forced))
            .answer(AskRequest(question: wronglyAnsweredQuestion))
        #expect(server.requests.isEmpty, "an ignored model was called")
        #expect(ignored.model?.role == .ignored)
        let plain = try await ask(wronglyAnsweredQuestion, role: nil)
        #expect(ignored.citations == plain.citations && ignored.status == plain.status)
    }

    @Test func onlyATrustedModelMayChooseASentenceToQuoteAndOnlyFromTheSchemasKeys() async throws {
        let question = "where do my letters and parcels go?"
        let picks = PickLog()
        let server = try capable.server(recordingPicks: picks)
        let model = OpenAICompatibleModel(configuration: configuration(server))
        let trusted = try await AskPipeline(library: exampleLibrary, model: model, modelStanding: ModelStanding(role: .trusted, basis: .forced))
            .answer(AskRequest(question: question))
        let postal = try #require(exampleLibrary.snippets.first { $0.title == "Postal address" })
        // Sentence 1 of "Postal address" is its description, which holds the question's words.
        #expect(trusted.modelQuote == QuoteChoice(candidateID: postal.id.rawValue, sentence: 0))
        let schema = try #require(server.chatRequests.last.flatMap {
            (($0.json["response_format"] as? [String: Any])?["json_schema"] as? [String: Any])?["schema"] as? [String: Any]
        })
        let quoteKeys = ((schema["properties"] as? [String: Any])?["quote"] as? [String: Any])?["enum"] as? [String]
        #expect(quoteKeys?.contains("\(postal.id.rawValue)#1") == true && quoteKeys?.first == "")

        let advisory = try await AskPipeline(library: exampleLibrary, model: model).answer(AskRequest(question: question))
        #expect(advisory.modelQuote == nil)
        #expect(picks.all.last?.contains("quote keys") == false, "an advisory model was offered a quote")

        // A quote that is not one of the keys (text of the model's own) is a reply outside the schema.
        let request = PickRequest(
            question: question, candidates: [PickCandidate(id: "s1", title: "A", description: nil, excerpt: "x", sentences: ["x"])],
            offersQuoteChoice: true)
        #expect(throws: AskModelError.self) {
            try PickReply(decodingModelOutput: #"{"status":"answered","cited":["s1"],"note":"","quote":"Your parcels go to Portsmouth"}"#, for: request)
        }
        #expect(try PickReply(decodingModelOutput: #"{"status":"answered","cited":["s1"],"note":"","quote":"s1#1"}"#, for: request).quote
            == QuoteChoice(candidateID: "s1", sentence: 0))
    }

    @Test func aTrustedModelsChosenSentenceIsTheQuoteAndTheFileHoldsItThere() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("model-quote-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = """
            {
              "Parcel returns": {
                "prefix": "returns",
                "description": "Where parcels are sent back",
                "body": ["Returns go to the depot in Hull.", "Opening hours: 8–16, Monday to Friday.", "Ask for Zoë at the gate."]
              }
            }
            """
        try text.write(to: folder.appendingPathComponent("post.code-snippets"), atomically: true, encoding: .utf8)
        let library = LibraryPaths(paths: [folder.path], source: .flags).load()
        let snippet = try #require(library.snippets.first)
        let sources = FileSystemSnippetSources(fileSystem: DiskFileSystem())
        let sentences = AskPipeline(library: library, sources: sources).quotableSentences(of: snippet)
        let wanted = try #require(sentences.firstIndex { $0.text == "Ask for Zoë at the gate." })
        // The model cites the snippet and chooses the third body line, which the deterministic choice would not.
        let server = try FakeModelServer { request in
            if request.path == "/props" { return props(4096) }
            let format = request.json["response_format"] as? [String: Any]
            let name = (format?["json_schema"] as? [String: Any])?["name"] as? String
            if name == "search_words" { return FakeModelServer.completion(#"{"words":[]}"#) }
            return FakeModelServer.completion(
                #"{"status":"answered","cited":["\#(snippet.id.rawValue)"],"note":"","quote":"\#(snippet.id.rawValue)#\#(wanted + 1)"}"#)
        }
        let model = OpenAICompatibleModel(configuration: configuration(server))
        let question = "where do parcels go back to and when is it open?"
        let trusted = try await AskPipeline(
            library: library, model: model, modelStanding: ModelStanding(role: .trusted, basis: .forced), sources: sources
        ).answer(AskRequest(question: question))
        #expect(trusted.status == .answered)
        let quote = try #require(trusted.citations.first?.quote)
        #expect(quote.text == "Ask for Zoë at the gate.")
        #expect(trusted.answer.contains("Ask for Zoë at the gate."))
        // The quote's range in the file holds exactly its text (UTF-8 offsets of the file's bytes).
        let bytes = Array(try Data(contentsOf: folder.appendingPathComponent("post.code-snippets")))
        let start = quote.location.range.start, end = quote.location.range.end
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let line = Array(lines[start.line])
        #expect(start.line == end.line)
        #expect(String(decoding: line[start.utf8Column..<end.utf8Column], as: UTF8.self) == quote.text)
        // Without the model's choice, the deterministic quote is another line.
        let plain = try await AskPipeline(library: library, sources: sources).answer(AskRequest(question: question))
        #expect(plain.citations.first?.quote?.text != "Ask for Zoë at the gate.")
    }

    @Test func aMeasuredCapableModelIsTrustedAndDeclinesTheQuestion() async throws {
        let server = try capable.server()
        let model = OpenAICompatibleModel(configuration: configuration(server))
        let probes = QualificationProbes.make(library: exampleLibrary, index: TokenIndex(library: exampleLibrary))
        let counts = try #require(await ModelQualifier(cache: QualificationCache(folder: testCacheDirectory), pacing: .immediate).measure(probes, model: model))
        let standing = ModelStanding.resolving(.auto, qualification: counts)
        #expect(standing.role == .trusted && standing.basis == .measured)
        let result = try await AskPipeline(library: exampleLibrary, model: model, modelStanding: standing)
            .answer(AskRequest(question: wronglyAnsweredQuestion))
        #expect(result.status == .noMatch && result.reason?.code == .modelVetoed)
        let wire = try JSONValue(encoding: AskResponse(result, encoding: .utf16, library: exampleLibrary))
        #expect(wire["modelRole"] == "trusted")
        #expect(wire["qualification"]?["basis"] == "measured")
        #expect(wire["qualification"]?["answerable"]?["probes"]?.intValue == counts.answerable.probes)
        #expect(try JSONSchemaValidator.load("snippets-ask.result.schema.json").violations(of: wire) == [])
    }
}

@Suite(.serialized) struct QualificationServerTests {
    let capable = CapableModel(library: exampleLibrary, answerKey: [wronglyAnsweredQuestion: nil])

    @Test func theServerMeasuresInTheBackgroundWithoutHoldingUpAskAndKeepsTheMeasurement() async throws {
        let cache = testCacheDirectory + "/server-\(UUID().uuidString)"
        // Each model call takes 1.5 s: the measurement's 19 probes (two calls each) take about a minute, far longer
        // than the bound below (an ask's own two calls take 3 s), so a loaded machine cannot blur the two.
        let server = try capable.server(delay: 1.5)
        let client = try await measuringClient(server, cache: cache)

        // The first ask is not held up by the measurement, and the model is advisory meanwhile.
        let first = try await client.result("snippets/ask", ["question": .string(wronglyAnsweredQuestion)], timeout: .seconds(60))
            .decode(AskResponse.self)
        // By order, not by seconds: the ask was answered while the measurement was still going.
        #expect(await standing(client, server).basis == .measuring, "the ask waited for the measurement")
        #expect(first.modelRole == "advisory" && first.qualification?.basis == "measuring")
        #expect(first.status == "fallback" && first.reason?.code == "model-disagreed")
        #expect(first.citations.map(\.title) == ["Gentle payment reminder"])

        #expect(await eventuallyAsync(within: 180) { await standing(client, server).basis == .measured })
        let measured = await standing(client, server)
        #expect(measured.role == .trusted && measured.basis == .measured)
        // Now trusted: the same question is declined.
        let second = try await client.result("snippets/ask", ["question": .string(wronglyAnsweredQuestion)], timeout: .seconds(60))
            .decode(AskResponse.self)
        #expect(second.modelRole == "trusted" && second.qualification?.basis == "measured")
        #expect(second.status == "noMatch" && second.reason?.code == "model-vetoed" && second.citations.isEmpty)
        #expect(second.qualification?.unanswerable?.agreed == second.qualification?.unanswerable?.probes)
        let files = try FileManager.default.contentsOfDirectory(atPath: cache + "/snippets-lsp/qualification")
        #expect(files.count == 1)
        _ = try await client.shutdownAndExit()

        // A new server on the same library and model takes the kept measurement: no probe is sent again.
        let callsBefore = server.chatRequests.count
        let again = try await measuringClient(server, cache: cache)
        var recalled = ModelStanding.unmeasured
        for _ in 0..<100 where recalled.basis != .measured {
            recalled = await standing(again, server)
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(recalled.role == .trusted)
        #expect(server.chatRequests.count == callsBefore, "the model was measured again")
        _ = try await again.shutdownAndExit()
    }

    @Test func aForcedRoleIsNotMeasuredAndABadRoleIsNamed() async throws {
        let server = try capable.server()
        let client = TestClient(library: TestLibrary(exampleLibrary.files), configure: { $0.measuresModels = true })
        try await client.initialize(options: ["model": ["url": .string(server.url), "role": "trusted"]])
        let result = try await client.result("snippets/ask", ["question": .string(wronglyAnsweredQuestion)]).decode(AskResponse.self)
        #expect(result.modelRole == "trusted" && result.qualification?.basis == "forced")
        #expect(result.reason?.code == "model-vetoed")
        #expect(server.chatRequests.count == 2, "a forced role was measured anyway")

        client.notify("workspace/didChangeConfiguration", ["settings": ["snippets": ["model": ["url": .string(server.url), "role": "always"]]]])
        let warning = try #require(await client.notification("window/showMessage"))
        #expect(warning["message"]?.stringValue?.contains("model.role") == true)
        _ = try await client.shutdownAndExit()
    }
}

@Suite struct ModelRoleCommandTests {
    @Test func askTakesTheRoleFlagAndShowsTheRole() async throws {
        let server = try CapableModel(library: exampleLibrary, answerKey: [wronglyAnsweredQuestion: nil]).server()
        let library = packageRoot.appendingPathComponent("examples/library").path
        let trusted = await runCommand([
            "ask", "--library", library, "--model-url", server.url, "--model-role", "trusted", "--json", wronglyAnsweredQuestion,
        ])
        #expect(trusted.status == 0)
        let json = try JSONValue.parse(Array(trusted.out.utf8))
        #expect(json["modelRole"] == "trusted" && json["reason"]?["code"] == "model-vetoed")
        let plain = await runCommand(["ask", "--library", library, "--model-url", server.url, wronglyAnsweredQuestion])
        #expect(plain.out.contains("Model role: advisory (not measured"))
        let bad = await runCommand(["ask", "--model-url", server.url, "--model-role", "always", "x"])
        #expect(bad.status == 2 && bad.err.contains("--model-role"))
    }

    @Test func doctorMeasuresTheModelAndShowsItsRole() async throws {
        let server = try CapableModel(library: exampleLibrary).server()
        let library = packageRoot.appendingPathComponent("examples/library").path
        let cache = testCacheDirectory + "/doctor-\(UUID().uuidString)"
        let doctor = await runCommand(
            ["doctor", "--library", library, "--model-url", server.url, "--model", "scripted"], environment: ["XDG_CACHE_HOME": cache])
        #expect(doctor.out.contains("role: trusted (measured on your library: answerable 9/9"), "\(doctor.out)")
        let calls = server.chatRequests.count
        let json = await runCommand(
            ["doctor", "--library", library, "--model-url", server.url, "--model", "scripted", "--json"], environment: ["XDG_CACHE_HOME": cache])
        let report = try JSONValue.parse(Array(json.out.utf8))
        #expect(report["model"]?["modelRole"] == "trusted")
        #expect(report["model"]?["qualification"]?["injected"]?["probes"]?.intValue == 2)
        #expect(server.chatRequests.count == calls, "the second doctor measured again instead of reading the cache")
    }
}
