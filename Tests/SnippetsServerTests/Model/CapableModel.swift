import Foundation
import SnippetsCore

/// A scripted capable model behind a fake OpenAI-compatible server: it reads each prompt the client sends (the
/// question, and each candidate's id, title, description and body) and answers as a careful reader would. It
/// knows the library (so it never cites an id that is not one of its snippets, whatever a body tells it) and the
/// answer key of the questions a test writes by hand (paraphrases, and questions that must be declined); any other
/// question it answers by reading: a candidate fits when its title, description and body hold every content word
/// of the question, and none fits when no candidate does.
struct CapableModel: Sendable {
    /// The ids of the library's snippets.
    let knownIDs: Set<String>
    /// Hand-written questions and the title that answers each (nil: it must be declined).
    let answerKey: [String: String?]

    init(library: SnippetLibrary, answerKey: [String: String?] = [:]) {
        knownIDs = Set(library.snippets.map(\.id.rawValue))
        self.answerKey = answerKey
    }

    /// A candidate as the prompt shows it.
    struct ShownCandidate {
        var id: String
        var title = ""
        var text = ""
    }

    /// The fake server: props, search words (none to add), and picks by reading the prompt, each after `delay`
    /// seconds (a model takes its time).
    func server(recordingPicks picks: PickLog? = nil, delay: Double = 0) throws -> FakeModelServer {
        try FakeModelServer { request in
            if delay > 0 && request.path != "/props" { Thread.sleep(forTimeInterval: delay) }
            if request.path == "/props" { return props(4096) }
            let format = request.json["response_format"] as? [String: Any]
            let name = (format?["json_schema"] as? [String: Any])?["name"] as? String
            if name == "search_words" { return FakeModelServer.completion(#"{"words":[]}"#) }
            let messages = request.json["messages"] as? [[String: Any]] ?? []
            let prompt = messages.last?["content"] as? String ?? ""
            let reply = pick(prompt: prompt)
            picks?.append(prompt)
            return FakeModelServer.completion(reply)
        }
    }

    /// The reply JSON for a pick prompt.
    func pick(prompt: String) -> String {
        let (question, candidates) = Self.read(prompt)
        let real = candidates.filter { knownIDs.contains($0.id) }
        let cited: [String]
        if let key = answerKey[question] {
            cited = key.flatMap { title in real.first { $0.title == title }.map { [$0.id] } } ?? []
        } else {
            let wanted = Set(QuestionWord.words(in: question).filter { !$0.isCompound }.map(\.stem))
            cited = real.filter { candidate in
                wanted.isSubset(of: Set(Tokenizer.tokens(in: candidate.title + "\n" + candidate.text).map(EnglishStemmer.stem)))
            }.prefix(1).map(\.id)
        }
        let offersQuotes = prompt.contains("sentences (quote keys):")
        if cited.isEmpty {
            return offersQuotes
                ? #"{"status":"noneFit","cited":[],"note":"","quote":""}"# : #"{"status":"noneFit","cited":[],"note":""}"#
        }
        guard offersQuotes else { return #"{"status":"answered","cited":["\#(cited[0])"],"note":""}"# }
        // The sentence of the cited snippet sharing the most words with the question.
        let wanted = Set(QuestionWord.words(in: question).map(\.stem))
        let keyed = prompt.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix(cited[0] + "#") }
        func shared(_ line: String) -> Int { Set(Tokenizer.tokens(in: line).map(EnglishStemmer.stem)).intersection(wanted).count }
        let most = keyed.map(shared).max() ?? 0
        let best = keyed.first { shared($0) == most }
        let key = best.map { String($0.prefix { $0 != ":" }) } ?? ""
        return #"{"status":"answered","cited":["\#(cited[0])"],"note":"","quote":"\#(key)"}"#
    }

    /// The question and candidates of a pick prompt (`ModelPrompts.pickMessages`).
    static func read(_ prompt: String) -> (question: String, candidates: [ShownCandidate]) {
        var question = ""
        var candidates: [ShownCandidate] = []
        var inBody = false
        for line in prompt.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if inBody {
                if line == "BODY>>>" { inBody = false } else { candidates[candidates.count - 1].text += "\n" + line }
            } else if line.hasPrefix("Question: ") {
                question = String(line.dropFirst("Question: ".count))
            } else if let range = line.range(of: "] id: "), line.hasPrefix("[") {
                candidates.append(ShownCandidate(id: String(line[range.upperBound...])))
            } else if line.hasPrefix("title: "), !candidates.isEmpty {
                candidates[candidates.count - 1].title = String(line.dropFirst("title: ".count))
            } else if line.hasPrefix("description: "), !candidates.isEmpty {
                candidates[candidates.count - 1].text += "\n" + line.dropFirst("description: ".count)
            } else if line == "<<<BODY", !candidates.isEmpty {
                inBody = true
            }
        }
        return (question, candidates)
    }
}

/// The pick prompts a fake server saw, in order.
final class PickLog: @unchecked Sendable {
    // @unchecked: `prompts` is only touched under `lock`.
    private let lock = NSLock()
    private var prompts: [String] = []

    func append(_ prompt: String) {
        lock.lock()
        prompts.append(prompt)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return prompts
    }
}
