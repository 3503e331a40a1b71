import Foundation
import SnippetsCore
import Testing

@testable import SnippetsModelClient
@testable import SnippetsServer

/// A question whose own words name one snippet of the example library beyond doubt: both its words are in the title
/// "Postal address" and in no other candidate's, so the server knows the answer itself.
let plainlyNamedQuestion = "where is my postal address?"

/// A capable model that can turn careless (decline everything) and be swapped for another model under the same URL
/// and name: its server says which model it serves at `/v1/models`, as llama-server does, and records every request.
final class TurningModel: @unchecked Sendable {
    // @unchecked: `declining` and `servedSize` are only touched under `lock`.
    private let lock = NSLock()
    private var declining = false
    /// The bytes of the model file the server says it serves: another file is another model.
    private var servedSize = 724_000_000
    let capable: CapableModel

    init(library: SnippetLibrary, answerKey: [String: String?] = [:]) {
        capable = CapableModel(library: library, answerKey: answerKey)
    }

    /// From now on, it says none fits, whatever it is asked.
    func declineEverything() { lock.withLock { declining = true } }

    /// From now on, the server serves another model file under the same name.
    func serveAnotherModel() { lock.withLock { servedSize += 1_000_000 } }

    /// llama-server's `/v1/models` for the one model it serves: `created` is the time of the request.
    func modelsBody() -> String {
        let size = lock.withLock { servedSize }
        let created = Int(Date().timeIntervalSince1970)
        return """
            {"object":"list","data":[{"id":"scripted","object":"model","created":\(created),"owned_by":"llamacpp",\
            "meta":{"vocab_type":2,"n_vocab":49152,"n_ctx_train":8192,"n_ctx":4096,"n_embd":960,"n_params":361821120,"size":\(size)}}]}
            """
    }

    func server() throws -> FakeModelServer {
        try FakeModelServer { [self] request in
            if request.path == "/props" { return props(4096) }
            if request.path == "/v1/models" { return .reply(status: 200, body: modelsBody()) }
            if request.searchWordsQuestion != nil { return FakeModelServer.completion(#"{"words":[]}"#) }
            let prompt = request.prompt
            guard lock.withLock({ declining }) else { return FakeModelServer.completion(capable.pick(prompt: prompt)) }
            return FakeModelServer.completion(
                prompt.contains("sentences (quote keys):") || request.offersQuote
                    ? #"{"status":"noneFit","cited":[],"note":"","quote":""}"# : #"{"status":"noneFit","cited":[],"note":""}"#)
        }
    }
}

extension FakeModelServer.Request {
    /// The question of a search-words request; nil for any other.
    var searchWordsQuestion: String? {
        let format = json["response_format"] as? [String: Any]
        guard (format?["json_schema"] as? [String: Any])?["name"] as? String == "search_words" else { return nil }
        let content = (json["messages"] as? [[String: Any]])?.last?["content"] as? String ?? ""
        return content.hasPrefix("Question: ") ? String(content.dropFirst("Question: ".count)) : content
    }

    /// The user message of a chat request.
    var prompt: String { (json["messages"] as? [[String: Any]])?.last?["content"] as? String ?? "" }

    /// The question of a pick request; nil for any other.
    var pickQuestion: String? {
        guard path.hasSuffix("/chat/completions"), searchWordsQuestion == nil else { return nil }
        return CapableModel.read(prompt).question
    }

    /// Whether a pick request's schema offers the choice of a quote (as a trusted model's asks do).
    var offersQuote: Bool {
        let schema = ((json["response_format"] as? [String: Any])?["json_schema"] as? [String: Any])?["schema"] as? [String: Any]
        return (schema?["properties"] as? [String: Any])?["quote"] != nil
    }
}

/// Whether `condition` becomes true within `seconds`, checked every 20 ms.
func eventuallyAsync(within seconds: Double, _ condition: () async -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}

/// Pacing for tests: spaced, as the server spaces probes, but in tens of milliseconds.
let testPacing = ProbePacing(gap: .milliseconds(10) ... .milliseconds(40))

/// Trust is not a one-time grant: a trusted model keeps being checked and loses its role when it disagrees, a kept
/// measurement expires and belongs to the model the server reported, and probes read as asks, spread out.
@Suite(.serialized) struct QualificationTrustTests {
    func ask(_ client: TestClient, _ question: String) async throws -> AskResponse {
        try await client.result("snippets/ask", ["question": .string(question)], timeout: .seconds(60)).decode(AskResponse.self)
    }

    /// A client whose server has measured `server`'s model trusted on the example library.
    func trustedClient(_ server: FakeModelServer, cache: String) async throws -> TestClient {
        let client = try await measuringClient(server, cache: cache, timeoutSeconds: 10)
        let trusted = await eventuallyAsync(within: 120) { await standing(client, server).role == .trusted }
        try #require(trusted, "the capable model was not measured trusted")
        return client
    }

    /// The issue's model: it answered the probes carefully, then declined everything. It declines a question it
    /// answered before, each time a check the server knows the answer to, and after the bound its veto is gone: the
    /// answer the question's words name is given again.
    @Test func aTrustedModelThatDeclinesWhatItAnsweredBeforeIsDemotedWithinTheBound() async throws {
        let cache = testCacheDirectory + "/trust-\(UUID().uuidString)"
        let model = TurningModel(library: exampleLibrary, answerKey: [plainlyNamedQuestion: "Postal address"])
        let server = try model.server()
        let client = try await trustedClient(server, cache: cache)

        let before = try await ask(client, plainlyNamedQuestion)
        #expect(before.modelRole == "trusted" && before.status == "answered" && before.citations.map(\.title) == ["Postal address"])

        model.declineEverything()
        var replies: [AskResponse] = []
        for _ in 0...TrustChecks.mostAsksBeforeDemotion {
            let reply = try await ask(client, plainlyNamedQuestion)
            replies.append(reply)
            if reply.modelRole != "trusted" { break }
        }
        // Each ask is a check it disagrees with: trusted for as many asks as it takes disagreements to end trust.
        let vetoed = replies.prefix { $0.modelRole == "trusted" }
        #expect(vetoed.count == TrustChecks.demotingDisagreements)
        #expect(vetoed.allSatisfy { $0.reason?.code == "model-vetoed" && $0.citations.isEmpty })
        let after = try #require(replies.last)
        #expect(after.modelRole == "advisory" && after.qualification?.basis == "demoted")
        #expect(after.qualification?.checks?.declined == TrustChecks.demotingDisagreements)
        #expect(after.citations.map(\.title) == ["Postal address"], "the demoted model's veto still stood")
        #expect(after.reason?.code == "model-disagreed")
        #expect(AskAnswerText.roleDescription(try #require(after.qualification)).hasPrefix("demoted: declined 3 of the last 4 checks with a known answer"))
        #expect(client.stderr.all.contains { $0.contains("no longer trusted: it declined 3 of the last 4 checks") })
        _ = try await client.shutdownAndExit()
    }

    /// The same model asked questions the server cannot verify: the probes that keep checking it (one after at most
    /// `asksPerCheck` asks, in a moment the user leaves the model idle) demote it within the bound, and a restart
    /// with the same cache does not trust it again.
    @Test func aTrustedModelThatStartsDecliningIsDemotedByItsChecksAndARestartDoesNotTrustIt() async throws {
        let cache = testCacheDirectory + "/trust-\(UUID().uuidString)"
        let model = TurningModel(library: exampleLibrary, answerKey: [wronglyAnsweredQuestion: nil])
        let server = try model.server()
        let client = try await trustedClient(server, cache: cache)
        let probeQuestions = Set(QualificationProbes.make(library: exampleLibrary, index: TokenIndex(library: exampleLibrary)).map(\.request.question))

        model.declineEverything()
        let flipped = server.requests.count
        var replies: [AskResponse] = []
        for _ in 0...TrustChecks.mostAsksBeforeDemotion {
            let reply = try await ask(client, wronglyAnsweredQuestion)
            replies.append(reply)
            if reply.modelRole != "trusted" { break }
            // A person pauses between questions: a due check is sent and answered before the next ask.
            #expect(await eventuallyAsync(within: 120) { await !client.server.qualifier.isCheckDue })
        }
        let trustedAsks = replies.prefix { $0.modelRole == "trusted" }.count
        #expect(trustedAsks <= TrustChecks.mostAsksBeforeDemotion, "trusted for \(trustedAsks) asks after it began to decline")
        let after = try #require(replies.last)
        #expect(after.modelRole == "advisory" && after.qualification?.basis == "demoted")
        // Advisory, its "none fits" no longer overrules the question's own words.
        #expect(after.reason?.code == "model-disagreed" && after.citations.map(\.title) == ["Gentle payment reminder"])

        // The checks were probes, each sent as a trusted model's ask is: search words, then a pick offering a quote.
        let checks = server.requests.dropFirst(flipped).filter { $0.pickQuestion.map(probeQuestions.contains) ?? false }
        #expect(checks.count >= TrustChecks.demotingDisagreements)
        #expect(checks.allSatisfy { $0.offersQuote })
        let asks = server.requests.dropFirst(flipped).filter { $0.pickQuestion == wronglyAnsweredQuestion }
        #expect(Set(checks.map { $0.json.keys.sorted() }) == Set(asks.map { $0.json.keys.sorted() }))
        let systemPrompts = Set((checks + asks).map { (($0.json["messages"] as? [[String: Any]])?.first?["content"] as? String) ?? "" })
        #expect(systemPrompts.count == 1)
        _ = try await client.shutdownAndExit()

        // A restart with the same cache recalls the demotion, not the trust, and measures nothing.
        let callsBefore = server.chatRequests.count
        let again = try await measuringClient(server, cache: cache, timeoutSeconds: 10)
        #expect(await eventuallyAsync(within: 120) { await standing(again, server).basis == .demoted })
        #expect(await standing(again, server).role == .advisory)
        let first = try await ask(again, wronglyAnsweredQuestion)
        #expect(first.modelRole == "advisory" && first.qualification?.basis == "demoted")
        #expect(server.chatRequests.count == callsBefore + 2, "the model was measured again (only the ask's two calls were expected)")
        _ = try await again.shutdownAndExit()
    }

    /// Asks that come faster than a due check can be sent between them do not keep the trust unchecked: once the
    /// check is due, asks see the model advisory (basis `checking`) until it is answered, then trusted again.
    @Test func aTrustedModelWhoseCheckIsDueIsAdvisoryUntilItIsAnswered() async throws {
        let cacheHome = testCacheDirectory + "/checking-\(UUID().uuidString)"
        let model = TurningModel(library: exampleLibrary, answerKey: [wronglyAnsweredQuestion: nil])
        let server = try model.server()
        // Measured trusted a day ago, kept in the cache: no probe is needed to trust it.
        typealias Tally = QualificationCounts.Tally
        let trusted = QualificationCounts(
            answerable: Tally(probes: 12, agreed: 12), unanswerable: Tally(probes: 8, agreed: 8), injected: Tally(probes: 4, agreed: 4))
        let key = QualificationCache.Key(
            configuration: configuration(server), identity: await OpenAICompatibleModel(configuration: configuration(server)).identity(),
            libraryRevision: QualificationProbes.revision(of: exampleLibrary))
        QualificationCache(environment: ["XDG_CACHE_HOME": cacheHome]).save(trusted, for: key, measuredAt: Date().addingTimeInterval(-86_400))
        // A probe waits for the model to be idle for 3 s: longer than these asks leave it.
        let client = TestClient(
            library: TestLibrary(exampleLibrary.files), environment: ["XDG_CACHE_HOME": cacheHome],
            configure: {
                $0.measuresModels = true
                $0.probePacing = ProbePacing(gap: .seconds(3) ... .seconds(3))
            })
        try await client.initialize(options: ["model": ["url": .string(server.url), "name": "scripted", "timeoutSeconds": 10]])
        #expect(await eventuallyAsync(within: 120) { await standing(client, server).role == .trusted })

        var replies: [AskResponse] = []
        for _ in 0...TrustChecks.asksPerCheck {
            replies.append(try await ask(client, wronglyAnsweredQuestion))
            if replies.last?.modelRole != "trusted" { break }
        }
        #expect(replies.prefix { $0.modelRole == "trusted" }.count <= TrustChecks.asksPerCheck)
        let unchecked = try #require(replies.last)
        #expect(unchecked.modelRole == "advisory" && unchecked.qualification?.basis == "checking")
        // Its answer is the advisory one: the question's own words are not overruled by an unchecked veto.
        #expect(unchecked.citations.map(\.title) == ["Gentle payment reminder"])

        // Left idle, the model answers its check, and is trusted again.
        #expect(await eventuallyAsync(within: 120) { await !client.server.qualifier.isCheckDue })
        let again = try await ask(client, wronglyAnsweredQuestion)
        #expect(again.modelRole == "trusted" && again.reason?.code == "model-vetoed")
        _ = try await client.shutdownAndExit()
    }

    /// Probes read as asks and come spread out: each is the two calls an ask makes, the first only after the model
    /// has been idle for the pacing's least gap, never while an ask is in flight, and not back to back.
    @Test func probesAreSpreadBetweenAsksNotABurst() async throws {
        let model = TurningModel(library: exampleLibrary)
        let server = try model.server()
        let client = OpenAICompatibleModel(configuration: configuration(server, timeout: 10))
        let probes = Array(QualificationProbes.make(library: exampleLibrary, index: TokenIndex(library: exampleLibrary)).prefix(6))
        let least = Duration.milliseconds(300)
        let qualifier = ModelQualifier(cache: QualificationCache(folder: testCacheDirectory), pacing: ProbePacing(gap: least ... .milliseconds(500)))
        let measurement = Task { await qualifier.measure(probes, model: client) }

        // The user asks once the second probe is answered.
        #expect(await eventually { server.requests.filter { $0.pickQuestion != nil }.count >= 2 })
        await qualifier.askStarted()
        let askBegan = ContinuousClock.now
        _ = try await client.searchWords(question: plainlyNamedQuestion)
        _ = try await client.pick(PickRequest(question: plainlyNamedQuestion, candidates: probes[0].request.candidates))
        let askEnded = ContinuousClock.now
        await qualifier.askEnded()
        _ = await measurement.value

        let chat = server.chatRequests.filter { $0.searchWordsQuestion != plainlyNamedQuestion && $0.pickQuestion != plainlyNamedQuestion }
        // The probes' calls, run by run: a probe whose call the ask interrupted is asked again, right after.
        var runs: [[FakeModelServer.Request]] = []
        for call in chat {
            let question = call.searchWordsQuestion ?? call.pickQuestion
            if let last = runs.last?.last, (last.searchWordsQuestion ?? last.pickQuestion) == question {
                runs[runs.count - 1].append(call)
            } else {
                runs.append([call])
            }
        }
        #expect(runs.map { $0.first?.searchWordsQuestion ?? $0.first?.pickQuestion } == probes.map(\.request.question))
        // Each probe ends as an ask does: search words for its question, then its pick.
        for run in runs {
            #expect(run.count >= 2 && run[run.count - 2].searchWordsQuestion != nil && run[run.count - 1].pickQuestion != nil)
        }
        // Between two probes the model was idle at least the least gap: no burst.
        for index in 1..<runs.count {
            let idle = runs[index][0].received - runs[index - 1][runs[index - 1].count - 1].received
            #expect(idle >= least, "probe \(index + 1) followed the one before it after \(idle)")
        }
        // None was sent while the ask was in flight, and the next came the least gap after it.
        #expect(!chat.contains { $0.received > askBegan && $0.received < askEnded })
        let next = try #require(chat.first { $0.received > askEnded })
        #expect(next.received - askEnded >= least)
    }

    /// A kept measurement is used for `maximumAge` from when it was made, then the model is measured again.
    @Test func aMeasurementOlderThanTheMaximumAgeIsMeasuredAgain() async throws {
        let cacheHome = testCacheDirectory + "/expiry-\(UUID().uuidString)"
        let environment = ["XDG_CACHE_HOME": cacheHome]
        let model = TurningModel(library: exampleLibrary)
        let server = try model.server()
        let index = TokenIndex(library: exampleLibrary)
        func recalled(measuring: Bool) async -> QualificationCounts? {
            await ModelQualifier.counts(
                of: configuration(server), library: exampleLibrary, index: index, environment: environment, measuring: measuring).counts
        }
        let measured = try #require(await recalled(measuring: true))
        #expect(measured.role == .trusted)
        let probeCalls = server.chatRequests.count
        #expect(await recalled(measuring: false) == measured, "a fresh measurement was not kept")

        // Kept six days ago: still used. Kept eight days ago: not used, and measured again.
        let cache = QualificationCache(environment: environment)
        let identity = await OpenAICompatibleModel(configuration: configuration(server)).identity()
        let key = QualificationCache.Key(
            configuration: configuration(server), identity: identity, libraryRevision: QualificationProbes.revision(of: exampleLibrary))
        cache.save(measured, for: key, measuredAt: Date().addingTimeInterval(-6 * 86_400))
        #expect(await recalled(measuring: false) == measured)
        cache.save(measured, for: key, measuredAt: Date().addingTimeInterval(-QualificationCache.maximumAge - 86_400))
        #expect(await recalled(measuring: false) == nil, "a measurement past the maximum age was used")
        #expect(server.chatRequests.count == probeCalls)
        #expect(await recalled(measuring: true)?.role == .trusted)
        #expect(server.chatRequests.count == 2 * probeCalls, "the expired measurement was not measured again")
        #expect(await recalled(measuring: false) != nil, "the new measurement was not kept")
    }

    /// Another model served under the same URL and name (another file behind llama-server's alias) inherits
    /// nothing: it is measured for itself, and the first model's measurement is recalled for it alone.
    @Test func aDifferentModelBehindTheSameURLAndNameDoesNotInheritTheRole() async throws {
        let environment = ["XDG_CACHE_HOME": testCacheDirectory + "/identity-\(UUID().uuidString)"]
        let model = TurningModel(library: exampleLibrary)
        let server = try model.server()
        let index = TokenIndex(library: exampleLibrary)
        func recalled(measuring: Bool) async -> QualificationCounts? {
            await ModelQualifier.counts(
                of: configuration(server), library: exampleLibrary, index: index, environment: environment, measuring: measuring).counts
        }
        #expect(await recalled(measuring: true)?.role == .trusted)
        let probeCalls = server.chatRequests.count
        // `created` changes with every request: the same model is still recalled.
        try await Task.sleep(for: .seconds(1.1))
        #expect(await recalled(measuring: false)?.role == .trusted)

        model.serveAnotherModel()
        #expect(await recalled(measuring: false) == nil, "another model inherited the role")
        #expect(await recalled(measuring: true) != nil)
        #expect(server.chatRequests.count == 2 * probeCalls, "the other model was not measured for itself")
        #expect(server.requests.contains { $0.path == "/v1/models" })
    }

    /// A trusted model swapped for another under the same URL and name while the server runs is found at its next
    /// check, and the new one is measured for itself.
    @Test func aModelSwappedWhileTrustedIsMeasuredAgainAtItsNextCheck() async throws {
        let cache = testCacheDirectory + "/swap-\(UUID().uuidString)"
        let model = TurningModel(library: exampleLibrary, answerKey: [wronglyAnsweredQuestion: nil])
        let server = try model.server()
        let client = try await trustedClient(server, cache: cache)
        let probeCount = QualificationProbes.make(library: exampleLibrary, index: TokenIndex(library: exampleLibrary)).count
        let measuredOnce = server.chatRequests.count

        model.serveAnotherModel()
        // Asks until a check is due: the check finds another model, and the next ask finds it unmeasured.
        for _ in 0..<TrustChecks.asksPerCheck {
            _ = try await ask(client, wronglyAnsweredQuestion)
            if await client.server.qualifier.isCheckDue { break }
        }
        #expect(await eventuallyAsync(within: 120) { await !client.server.qualifier.isCheckDue })
        let next = try await ask(client, wronglyAnsweredQuestion)
        #expect(next.modelRole == "advisory" && next.qualification?.basis == "measuring")
        // Measured for itself: all its probes again.
        #expect(await eventually(within: 120) { server.chatRequests.count >= measuredOnce + 2 * probeCount })
        #expect(await eventuallyAsync(within: 120) { await standing(client, server).basis == .measured })
        let files = try FileManager.default.contentsOfDirectory(atPath: cache + "/snippets-lsp/qualification")
        #expect(files.count == 2, "one measurement for each model")
        _ = try await client.shutdownAndExit()
    }

    /// The server's `/v1/models` answer names a model by what describes its file, not by what changes per request or
    /// per server setting.
    @Test func aModelsIdentityIsWhatDescribesItsFile() {
        func identity(_ body: String, _ name: String? = "scripted") -> String? {
            OpenAICompatibleModel.modelIdentity(inModels: Data(body.utf8), modelName: name)
        }
        let llama = #"{"object":"list","data":[{"id":"scripted","object":"model","created":1,"owned_by":"llamacpp","meta":{"n_params":361821120,"size":724000000,"n_ctx":4096}}]}"#
        let later = llama.replacingOccurrences(of: #""created":1"#, with: #""created":99"#).replacingOccurrences(of: "4096", with: "8192")
        let otherFile = llama.replacingOccurrences(of: "724000000", with: "725000000")
        #expect(identity(llama) != nil)
        #expect(identity(llama) == identity(later), "the request time or the server's context setting changed the identity")
        #expect(identity(llama) != identity(otherFile))
        // Of several models, the one named (by id or alias); a list without one names nothing.
        let two = #"{"data":[{"id":"a","owned_by":"x"},{"id":"b","aliases":["scripted"],"owned_by":"y"}]}"#
        let twoOtherA = #"{"data":[{"id":"a","owned_by":"z"},{"id":"b","aliases":["scripted"],"owned_by":"y"}]}"#
        #expect(identity(two) == identity(twoOtherA))
        #expect(identity(#"{"data":[]}"#) == nil && identity("not json") == nil)
    }

    /// A trusted model's reply is checked only where the server knows the answer: the question's own words name one
    /// candidate beyond doubt. Elsewhere its "none fits" is its own judgement, which measurement earned.
    @Test func aTrustedModelsAnswerIsCheckedWhereTheServerKnowsTheAnswer() async throws {
        let model = TurningModel(library: exampleLibrary, answerKey: [plainlyNamedQuestion: "Postal address", wronglyAnsweredQuestion: nil])
        let server = try model.server()
        let client = OpenAICompatibleModel(configuration: configuration(server))
        func check(_ question: String, role: ModelRole = .trusted) async throws -> ModelCheck? {
            try await AskPipeline(library: exampleLibrary, model: client, modelStanding: ModelStanding(role: role, basis: .measured))
                .answer(AskRequest(question: question)).modelCheck
        }
        #expect(try await check(plainlyNamedQuestion) == .agreed)
        #expect(try await check(wronglyAnsweredQuestion) == nil)
        model.declineEverything()
        #expect(try await check(plainlyNamedQuestion) == .declined)
        #expect(try await check(wronglyAnsweredQuestion) == nil)
        #expect(try await check(plainlyNamedQuestion, role: .advisory) == nil)
    }

    @Test func theLatestChecksEndTrustAtTheBoundAndSayHow() {
        var checks = TrustChecks()
        for check in [ModelCheck.agreed, .declined, .agreed, .declined] { checks.record(check) }
        #expect(!checks.endTrust)
        checks.record(.failedAudit)
        #expect(checks.endTrust && checks.latest.count == TrustChecks.window)
        #expect(checks.summary == "declined 2 and failed the audit in 1 of the last 5 checks with a known answer")
        // Only the latest `window` count: old disagreements are forgotten.
        for _ in 0..<4 { checks.record(.agreed) }
        #expect(!checks.endTrust && checks.disagreements == 1)
        #expect(TrustChecks.mostAsksBeforeDemotion == TrustChecks.demotingDisagreements * TrustChecks.asksPerCheck)
    }
}
