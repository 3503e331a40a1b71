// Prints the sentence encoder's speed and memory: question encoding median and p99 over 200 questions, the cost per
// snippet text of about 40 word pieces, with BLAS and with the pure-Swift kernel. A benchmark: it asserts nothing.
//
// Usage: snippets-encoder-bench [ENCODER_FILE]   (default .build/encoder/snippets-encoder.bin; `make encoder-bench`)

import Foundation
import SnippetsEncoder

let path = CommandLine.arguments.dropFirst().first ?? ".build/encoder/snippets-encoder.bin"

/// This process's resident memory in MB (Linux's /proc/self/status).
func residentMegabytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kilobytes = Double(line.split(separator: " ")[1])
    else { return .nan }
    return kilobytes / 1024
}

/// The calling thread's CPU time for `body`, in ms: other builds sharing the two cores do not inflate it (the encoder
/// runs on the caller's thread; BLAS is told to use one thread).
func milliseconds(_ body: () -> Void) -> Double {
    func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
    }
    let start = now()
    body()
    return now() - start
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}

let openings = [
    "how do I", "what's the snippet to", "show me how to", "I need to", "is there a template to",
    "quick way to", "remind me how to", "what do I use to", "can you find the snippet that lets me", "how can we",
]
let tasks = [
    "remind a client that an invoice is overdue", "undo the last git commit but keep my changes",
    "set bash strict mode at the top of a script", "write a polite follow-up after a meeting",
    "decline a meeting invitation without sounding rude", "center a div horizontally and vertically in CSS",
    "read a JSON file in Python", "write a SQL query that counts orders per customer",
    "thank someone for a referral", "ask for a deadline extension", "open a pull request description",
    "format a date as ISO 8601 in Swift", "reply to a customer asking for a refund", "start a new React component",
    "write an out-of-office message", "loop over the lines of a file in bash", "introduce two colleagues by email",
    "add a license header to a source file", "log an error with a stack trace", "send my bank details for a payment",
]
let questions = (0..<200).map { index in "\(openings[index % openings.count]) \(tasks[index / openings.count % tasks.count])?" }
let snippetTexts = (0..<60).map { index in
    "\(tasks[index % tasks.count].capitalized). A reusable template for when you need to \(tasks[(index + 7) % tasks.count]), "
        + "with placeholders for the name, the date and the amount."
}

let before = residentMegabytes()
var loaded: SentenceEncoder!
let loadTime = milliseconds { loaded = try! SentenceEncoder(contentsOf: path) }
let encoder = loaded!
let afterLoad = residentMegabytes()
_ = encoder.embed("warm up the BLAS library and its buffers")
let afterEmbed = residentMegabytes()
print("encoder file: \(path) (\(encoder.identity)), dimension \(encoder.dimension)")
print(String(format: "load: %.0f ms CPU; resident memory %.1f MB before, +%.1f MB loaded, +%.1f MB after the first embed (BLAS)",
             loadTime, before, afterLoad - before, afterEmbed - before))
print(String(format: "word pieces: question %.1f on average, snippet text %.1f on average",
             Double(questions.map { encoder.wordPieceCount($0) }.reduce(0, +)) / Double(questions.count),
             Double(snippetTexts.map { encoder.wordPieceCount($0) }.reduce(0, +)) / Double(snippetTexts.count)))

func report(_ encoder: SentenceEncoder, questionCount: Int, snippetCount: Int) {
    let times = questions.prefix(questionCount).map { question in milliseconds { _ = encoder.embed(question) } }
    let snippets = milliseconds { _ = encoder.embed(Array(snippetTexts.prefix(snippetCount))) }
    print(String(format: "%@: question median %.2f ms, p99 %.2f ms (%d questions); snippet %.2f ms each (%d texts)",
                 encoder.matrixLibrary, percentile(times, 0.5), percentile(times, 0.99), times.count,
                 snippets / Double(snippetCount), snippetCount))
}

report(encoder, questionCount: questions.count, snippetCount: snippetTexts.count)
let portable = try! SentenceEncoder(contentsOf: path, usesBLAS: false)
report(portable, questionCount: questions.count, snippetCount: snippetTexts.count)
let agreement = questions.prefix(20).map { question in
    zip(encoder.embed(question), portable.embed(question)).reduce(Float(0)) { $0 + $1.0 * $1.1 }
}.min()!
print(String(format: "BLAS and Swift kernel agree to cosine >= %.6f over 20 questions", agreement))

// Against scripts/encoder/reference.py's vectors (fp32 weights, float64 arithmetic), every sentence, both kernels.
struct Reference: Decodable {
    struct Case: Decodable {
        let text: String
        let vector: [Float]
    }
    let cases: [Case]
}
if let data = FileManager.default.contents(atPath: "Tests/Fixtures/encoder/reference.json"),
    let reference = try? JSONDecoder().decode(Reference.self, from: data)
{
    for candidate in [encoder, portable] {
        let cosines = reference.cases.map { item in
            zip(candidate.embed(item.text), item.vector).reduce(Float(0)) { $0 + $1.0 * $1.1 }
        }
        print(String(format: "%@: cosine to the reference, min %.6f over %d sentences", candidate.matrixLibrary,
                     cosines.min()!, cosines.count))
    }
}
