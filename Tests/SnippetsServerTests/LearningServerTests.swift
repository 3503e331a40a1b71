import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// `snippets.learn`, the `learning` setting, `learn`/`gaps` on the command line and the gap log.
@Suite(.serialized) struct LearningServerTests {
    let library: String
    let state: String
    let snippetFile: String

    init() throws {
        library = try temporaryCopy(of: LearningBattery.folder.appendingPathComponent("library")).path
        state = FileManager.default.temporaryDirectory.appendingPathComponent("learning-state-\(UUID().uuidString)").path
        snippetFile = library + "/office.code-snippets"
    }

    var learnedFile: String { library + "/" + LearnedWords.fileName }

    func ask(_ client: TestClient, _ question: String) async throws -> AskResponse {
        try await client.result("snippets/ask", ["question": .string(question)]).decode(AskResponse.self)
    }

    func learn(_ client: TestClient, _ question: String, id: String) async -> Result<JSONValue, ResponseError>? {
        await client.request(
            "workspace/executeCommand",
            ["command": "snippets.learn", "arguments": [["question": .string(question), "id": .string(id)]]])
    }

    @Test func insertingFromAnAskTeachesTheServerAtOnce() async throws {
        let snippetBytes = try Data(contentsOf: URL(fileURLWithPath: snippetFile))
        let client = TestClient(diskLibrary: [library])
        try await client.initialize()
        let question = "a café still owes me money"
        let before = try await ask(client, question)
        #expect(before.status == "noMatch")
        let chase = try #require(await client.server.snapshot.library.snippets.first { $0.title == "Unpaid account chase" })

        let reply = try await learn(client, question, id: chase.id.rawValue)?.get().decode(LearnResult.self)
        #expect(reply?.learned == ["café", "owes", "money"])
        #expect(reply?.path == learnedFile)
        let after = try await ask(client, "that café owes us")
        #expect(after.status == "answered")
        #expect(after.citations.map(\.title) == ["Unpaid account chase"])
        #expect(after.answer.hasSuffix("Matched words you used before: café, owes."))
        // Learning wrote only the learned-words file; completion by trigger or word is what it was.
        #expect(try Data(contentsOf: URL(fileURLWithPath: snippetFile)) == snippetBytes)
        #expect(await client.server.snapshot.index?.search("café").hits.isEmpty == true)

        // Learning the same again writes nothing new.
        let again = try await learn(client, question, id: chase.id.rawValue)?.get().decode(LearnResult.self)
        #expect(again?.learned == [] && again?.path == nil)
        // An unknown snippet is refused.
        guard case .failure(let unknown)? = await learn(client, question, id: "s0000000000000000") else {
            Issue.record("an unknown id was accepted")
            return
        }
        #expect(unknown.message.hasPrefix("Nothing learned: no snippet has the identifier"))
    }

    func forget(_ client: TestClient, _ question: String, id: String, words: [String]?) async -> Result<JSONValue, ResponseError>? {
        var argument: [String: JSONValue] = ["question": .string(question), "id": .string(id)]
        if let words { argument["words"] = .array(words.map(JSONValue.string)) }
        return await client.request("workspace/executeCommand", ["command": "snippets.forget", "arguments": [.object(argument)]])
    }

    @Test func aWrongInsertIsTakenBackFromTheEditorAndTheAnswerIsWhatItWas() async throws {
        let client = TestClient(diskLibrary: [library])
        try await client.initialize()
        let question = "how do I tell everyone I'm off sick today"
        let before = try await ask(client, question)
        #expect(before.citations.map(\.title) == ["Sick day notice"])
        // RET on the wrong line of the answer: the out-of-office reply learns the question.
        let wrong = try #require(await client.server.snapshot.library.snippets.first { $0.title == "Out of office" })
        let lesson = try #require(try await learn(client, question, id: wrong.id.rawValue)?.get().decode(LearnResult.self))
        #expect(!lesson.learned.isEmpty)
        let taught = try await ask(client, question)
        // One insert stands beside what the question's own words name, never in its place.
        #expect(taught.citations.map(\.title) == ["Sick day notice", "Out of office"])

        // The editor's undo sends back what the learn result said.
        let undo = try #require(try await forget(client, question, id: wrong.id.rawValue, words: lesson.learned)?.get().decode(ForgetResult.self))
        #expect(undo.forgotten == lesson.learned.count && undo.forgotQuestion && undo.title == "Out of office")
        #expect(undo.path == learnedFile)
        let left = (try? String(contentsOfFile: learnedFile, encoding: .utf8)) ?? ""
        #expect(!left.contains("Out of office"))
        let after = try await ask(client, question)
        #expect(after.citations.map(\.title) == before.citations.map(\.title))
        #expect(after.answer == before.answer)
        // Nothing left to take back: said so, nothing written.
        let again = try #require(try await forget(client, question, id: wrong.id.rawValue, words: lesson.learned)?.get().decode(ForgetResult.self))
        #expect(again.forgotten == 0 && !again.forgotQuestion && again.path == nil)
    }

    @Test func aTaughtQuestionAskedAgainNamesItsSnippetWhateverWordsItTaught() async throws {
        let bakery = try temporaryCopy(of: LearningBattery.folder.appendingPathComponent("library")).path
        try """
            {
              "Allergen statement": {"prefix": "allergen", "description": "What our products may contain", "body": "All our products are made in a kitchen that handles nuts, gluten and milk."},
              "Bread order": {"prefix": "breadord", "description": "Weekly bread order for the bakery", "body": "Please deliver ${1:20} loaves of bread on Monday."},
              "Sourdough bread": {"prefix": "sourdough", "description": "Our sourdough bread", "body": "Our sourdough bread is baked fresh every morning."},
              "Bread prices": {"prefix": "breadprice", "description": "Price list for bread", "body": "A loaf of bread costs 3 euros."}
            }
            """.write(toFile: bakery + "/bakery.code-snippets", atomically: true, encoding: .utf8)
        let question = "someone asked if the bread has nuts in it"
        func cited() async throws -> [String] {
            let run = await runCommand(["ask", question, "--library", bakery, "--json"], environment: ["XDG_STATE_HOME": state])
            return try JSONValue.parse(Array(run.out.utf8))["citations"]?.arrayValue?.compactMap { $0["title"]?.stringValue } ?? []
        }
        #expect(try await cited() == [])
        let learn = await runCommand(["learn", question, "--snippet", "Allergen statement", "--library", bakery], environment: ["XDG_STATE_HOME": state])
        #expect(learn.out == "\"Allergen statement\" learned: bread (in \(bakery)/\(LearnedWords.fileName)).\n")
        #expect(try await cited() == ["Allergen statement"])
    }

    @Test func completionIsTheSameBeforeAndAfterLearning() async throws {
        let client = TestClient(diskLibrary: [library])
        try await client.initialize()
        let uri = "file:///work/notes.md"
        client.open(uri, language: "markdown", text: "café\nchase\nowes")
        func labels() async throws -> [[String]] {
            var result: [[String]] = []
            for line in 0..<3 {
                let list = try await client.complete(uri, line: line, character: line == 1 ? 5 : 4)
                result.append(list.items.map(\.label))
            }
            return result
        }
        let before = try await labels()
        let chase = try #require(await client.server.snapshot.library.snippets.first { $0.title == "Unpaid account chase" })
        _ = try await learn(client, "a café still owes me money", id: chase.id.rawValue)?.get()
        #expect(await client.server.snapshot.learned.isEmpty == false)
        #expect(try await labels() == before)
        #expect(before[0].isEmpty && before[2].isEmpty)
    }

    @Test func aHandEditOfTheLearnedFileIsPickedUpAndKept() async throws {
        let hand = "{\n  // mine\n  \"office.code-snippets\": {\"Wifi password\": [\"internet\"]}\n}\n"
        try hand.write(toFile: learnedFile, atomically: true, encoding: .utf8)
        let client = TestClient(diskLibrary: [library])
        try await client.initialize()
        #expect(try await ask(client, "the internet").citations.map(\.title) == ["Wifi password"])
        let chase = try #require(await client.server.snapshot.library.snippets.first { $0.title == "Unpaid account chase" })
        _ = try await learn(client, "a café still owes me money", id: chase.id.rawValue)?.get()
        let written = try String(contentsOfFile: learnedFile, encoding: .utf8)
        #expect(written.hasPrefix("{\n  // mine\n  \"office.code-snippets\": {\"Wifi password\": [\"internet\"],"))
        #expect(written.contains("\"Unpaid account chase\": [\"café\", \"owes\", \"money\", \"? a café still owes me money\"]"))
    }

    @Test func aFolderThatMayNotBeWrittenIsRefusedAndLeftAlone() async throws {
        let client = TestClient(diskLibrary: [library]) { configuration in
            configuration.mayWriteLearnedWords = { _ in false }
        }
        try await client.initialize()
        let chase = try #require(await client.server.snapshot.library.snippets.first { $0.title == "Unpaid account chase" })
        guard case .failure(let error)? = await learn(client, "a café still owes me money", id: chase.id.rawValue) else {
            Issue.record("a read-only folder was written")
            return
        }
        #expect(error.message.contains("is read-only; nothing was learned"))
        #expect(!FileManager.default.fileExists(atPath: learnedFile))
    }

    @Test func learningOffIgnoresLearnedWordsRefusesLearningAndLogsNoGaps() async throws {
        try "{\"office.code-snippets\": {\"Wifi password\": [\"internet\"]}}".write(toFile: learnedFile, atomically: true, encoding: .utf8)
        let client = TestClient(diskLibrary: [library]) { $0.environment = ["XDG_STATE_HOME": state] }
        try await client.initialize(options: ["learning": false])
        #expect(try await ask(client, "the internet").status == "noMatch")
        #expect(GapLog(environment: ["XDG_STATE_HOME": state]).gaps().isEmpty)
        let chase = try #require(await client.server.snapshot.library.snippets.first { $0.title == "Unpaid account chase" })
        guard case .failure(let error)? = await learn(client, "a café still owes me money", id: chase.id.rawValue) else {
            Issue.record("learning while switched off")
            return
        }
        #expect(error.message.contains("learning is switched off"))
        // Switched back on: the file is read again.
        client.notify("workspace/didChangeConfiguration", ["settings": ["snippets": ["learning": true]]])
        try await client.nextLoad()
        #expect(try await ask(client, "the internet").citations.map(\.title) == ["Wifi password"])
    }

    @Test func aDeclinedQuestionCanBeSavedAsASnippetDescribedByIt() async throws {
        let client = TestClient(diskLibrary: [library])
        try await client.initialize()
        let uri = "file:///work/notes.md"
        client.open(uri, language: "markdown", text: "\n")
        let question = "how do I bake sourdough bread"
        #expect(try await ask(client, question).status == "noMatch")
        let empty: JSONValue = ["start": ["line": 0, "character": 0], "end": ["line": 0, "character": 0]]
        let saved = try await client.result(
            "workspace/executeCommand",
            ["command": "snippets.saveSelection",
             "arguments": [["textDocument": ["uri": .string(uri)], "range": empty, "description": .string(question)]]]
        ).decode(SaveSelectionResult.self)
        #expect(saved.title == question && saved.isInLibrary)
        let answer = try await ask(client, question)
        #expect(answer.citations.map(\.title) == [question])
        let file = try String(contentsOfFile: library + "/saved.code-snippets", encoding: .utf8)
        #expect(file.contains("\"body\": [\"$0\"],\n\t\t\"description\": \"how do I bake sourdough bread\""))
        // Without a description an empty selection is still refused.
        let refused = await client.request(
            "workspace/executeCommand",
            ["command": "snippets.saveSelection", "arguments": [["textDocument": ["uri": .string(uri)], "range": empty]]])
        guard case .failure(let error)? = refused else {
            Issue.record("an empty selection was saved")
            return
        }
        #expect(error.message.contains("the selection is empty"))
    }

    @Test func serveNoLearningWinsOverTheSetting() async throws {
        try "{\"office.code-snippets\": {\"Wifi password\": [\"internet\"]}}".write(toFile: learnedFile, atomically: true, encoding: .utf8)
        let client = TestClient(diskLibrary: [library]) { $0.learningDisabled = true }
        try await client.initialize(options: ["learning": true])
        #expect(try await ask(client, "the internet").status == "noMatch")
    }

    @Test func aChangedLearnedFileIsNoticedByThePeriodicCheck() throws {
        // Clients that cannot watch files rely on the stamps: the hidden learned-words file must be among them.
        try "{}".write(toFile: learnedFile, atomically: true, encoding: .utf8)
        #expect(DiskStamps.stamps(under: [library]).keys.contains(learnedFile))
    }

    @Test func theLearningSettingMustBeABoolean() {
        let (settings, problems) = ServerSettings().applying(["learning": "no"])
        #expect(settings.learning)
        #expect(problems.map(\.name) == ["learning"])
        #expect(ServerSettings().applying(["learning": false]).settings.learning == false)
    }

    // MARK: - Command line

    func run(_ arguments: [String]) async -> (status: Int32, out: String, err: String) {
        await runCommand(arguments, environment: ["XDG_STATE_HOME": state, "HOME": "/nonexistent"])
    }

    @Test func learnAndForgetOnTheCommandLine() async throws {
        #expect(await run(["learn", "--help"]).out.contains("--forget QUESTION --snippet S"))
        #expect(await run(["learn", "a café owes me"]).status == 2)
        #expect(await run(["learn", "--forget", "--library", library]).status == 2)
        #expect(await run(["learn", "q", "--snippet", "No such", "--library", library]).status == 1)

        let first = await run(["learn", "a café still owes me money", "--snippet", "unpaid account chase", "--library", library])
        #expect(first.status == 0)
        #expect(first.out == "\"Unpaid account chase\" learned: café, owes, money (in \(learnedFile)).\n")
        #expect(await run(["learn", "internet login for visitors", "--snippet", "Wifi password", "--library", library]).status == 0)
        // A question of the snippet's own words teaches no word, only the question; taught again, nothing.
        #expect(await run(["learn", "the wifi password", "--snippet", "Wifi password", "--library", library]).out
            == "\"Wifi password\" learned this question (in \(learnedFile)).\n")
        #expect(await run(["learn", "The wifi password?", "--snippet", "Wifi password", "--library", library]).out
            == "Nothing new to learn: \"Wifi password\" already has every content word of the question.\n")
        // Forget a question's words everywhere: "money" and "login" go, the rest stays.
        #expect(await run(["learn", "--forget", "money login", "--library", library]).out == "Forgot 2 learned words.\n")
        var file = try String(contentsOfFile: learnedFile, encoding: .utf8)
        #expect(file.contains("\"Unpaid account chase\": [\"café\", \"owes\", \"? a café still owes me money\"]"))
        #expect(file.contains("\"Wifi password\": [\"internet\", \"visitors\", \"? internet login for visitors\", \"? the wifi password\"]"))
        // Forget a snippet: its entry goes.
        #expect(await run(["learn", "--forget", "--snippet", "Wifi password", "--library", library]).out == "Forgot 2 learned words.\n")
        file = try String(contentsOfFile: learnedFile, encoding: .utf8)
        #expect(!file.contains("Wifi password"))
        #expect(await run(["check", "--library", library]).status == 0)
    }

    @Test func checkWarnsAboutLearnedWordsWhoseSnippetIsGone() async throws {
        try "{\n\"office.code-snippets\": {\n\"Deleted snippet\": [\"x\"]}}".write(toFile: learnedFile, atomically: true, encoding: .utf8)
        let check = await run(["check", "--library", library])
        #expect(check.status == 0)
        #expect(check.out.contains(".snippets-learned.json:3:1: warning: learned words for \"Deleted snippet\" in office.code-snippets: no such snippet"))
        try "{ \"office.code-snippets\": ".write(toFile: learnedFile, atomically: true, encoding: .utf8)
        let broken = await run(["check", "--library", library])
        #expect(broken.status == 1)
        #expect(broken.out.contains("error: the learned-words file is not valid JSON"))
    }

    @Test func unansweredQuestionsAreLoggedOutsideTheLibraryAndListedMostAskedFirst() async throws {
        #expect(await run(["gaps"]).out.hasPrefix("No gaps logged"))
        _ = await run(["ask", "how do I bake sourdough bread", "--library", library])
        _ = await run(["ask", "what is my passport number", "--library", library])
        _ = await run(["ask", "What is my  passport number", "--library", library])
        _ = await run(["ask", "how do I bake sourdough bread", "--library", library, "--no-learning"])
        _ = await run(["ask", "what is the wifi password", "--library", library])  // answered: no gap
        _ = await run(["ask", "what is it", "--library", library])  // nothing to search for: no gap
        #expect(await run(["gaps"]).out == "   2  what is my passport number\n   1  how do I bake sourdough bread\n")
        let json = try JSONValue.parse(Array(await run(["gaps", "--json"]).out.utf8))
        #expect(json["gaps"]?.arrayValue?.map { $0["count"]?.intValue } == [2, 1])
        #expect(FileManager.default.fileExists(atPath: state + "/snippets-lsp/gaps.json"))
        // Nothing was written into the library.
        #expect(try FileManager.default.contentsOfDirectory(atPath: library) == ["office.code-snippets"])
        #expect(await run(["gaps", "--clear"]).status == 0)
        #expect(await run(["gaps"]).out.hasPrefix("No gaps logged"))
    }

    @Test func learnTakesATriggerAndATaughtQuestionLeavesTheGaps() async throws {
        _ = await run(["ask", "a café still owes me money", "--library", library])
        _ = await run(["ask", "how do I bake sourdough bread", "--library", library])
        let gaps = GapLog(environment: ["XDG_STATE_HOME": state])
        #expect(Set(gaps.gaps().map(\.question)) == ["how do I bake sourdough bread", "a café still owes me money"])
        // The snippet by its trigger, as it is typed; the question is taught, so it is a gap no more.
        let taught = await run(["learn", "a café  still owes me money", "--snippet", "chase", "--library", library])
        #expect(taught.status == 0, "\(taught.err)")
        #expect(taught.out == "\"Unpaid account chase\" learned: café, owes, money (in \(learnedFile)).\n")
        #expect(await run(["gaps"]).out == "   1  how do I bake sourdough bread\n")
        let unknown = await run(["learn", "q", "--snippet", "nochase", "--library", library])
        #expect(unknown.status == 1)
        #expect(unknown.err == "snippets-lsp learn: no snippet has the identifier, title or trigger \"nochase\"\n")
    }

    @Test func gapsJSONIsIndentedAsEveryOtherCommandsJSON() async throws {
        _ = await run(["ask", "how do I bake sourdough bread", "--library", library])
        let out = await run(["gaps", "--json"]).out
        #expect(out.hasPrefix("{\n  \"gaps\" : [\n    {\n      \"count\" : 1,\n"), "\(out)")
        #expect(try JSONValue.parse(Array(out.utf8))["gaps"]?.arrayValue?.first?["question"] == "how do I bake sourdough bread")
    }

    @Test func anEditorLearningAQuestionTakesItOutOfTheGaps() async throws {
        let client = TestClient(diskLibrary: [library]) { configuration in
            configuration.environment = ["XDG_STATE_HOME": state]
        }
        try await client.initialize()
        let question = "a café still owes me money"
        #expect(try await ask(client, question).status == "noMatch")
        #expect(GapLog(environment: ["XDG_STATE_HOME": state]).gaps().map(\.question) == [question])
        let chase = try #require(await client.server.snapshot.library.snippets.first { $0.title == "Unpaid account chase" })
        _ = try await learn(client, question, id: chase.id.rawValue)?.get()
        #expect(GapLog(environment: ["XDG_STATE_HOME": state]).gaps().isEmpty)
    }

    @Test func anEditorAskAnsweredNoMatchIsAGap() async throws {
        let client = TestClient(diskLibrary: [library]) { configuration in
            configuration.environment = ["XDG_STATE_HOME": state]
        }
        try await client.initialize()
        _ = try await ask(client, "how do I bake sourdough bread")
        #expect(GapLog(environment: ["XDG_STATE_HOME": state]).gaps().map(\.question) == ["how do I bake sourdough bread"])
    }
}
