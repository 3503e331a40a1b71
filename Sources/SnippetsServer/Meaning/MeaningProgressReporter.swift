import Foundation
import SnippetsCore

/// Tells the client how far embedding has got: `window/workDoneProgress/create`, then `$/progress` begin, a report
/// every tenth, and end, for a client that shows server-started progress; a log line when done either way. Says
/// nothing when every snippet was already embedded (the cache had them all).
final class MeaningProgressReporter: @unchecked Sendable {
    private let connection: ClientConnection
    private let showsProgress: Bool
    private let token: JSONValue
    private let lock = NSLock()
    private var begun = false
    private var lastTenth = -1
    private var firstDone: Int?

    init(connection: ClientConnection, showsProgress: Bool, generation: Int) {
        self.connection = connection
        self.showsProgress = showsProgress
        token = .string("snippets-meaning-\(generation)")
    }

    func report(done: Int, total: Int, finished: Bool) {
        lock.withLock {
            if firstDone == nil { firstDone = done }
            let encoded = done - (firstDone ?? 0)
            if finished {
                if begun {
                    connection.sendNotification("$/progress", WorkDoneProgress(token: token, value: .init(kind: "end", message: "\(done) of \(total) snippets")))
                }
                if encoded > 0 { connection.log("meaning search ready: embedded \(encoded) snippets (\(done) of \(total) in all)") }
                return
            }
            guard showsProgress, done < total, total > 0 else { return }
            if !begun {
                begun = true
                connection.sendRequest("window/workDoneProgress/create", WorkDoneProgressCreateParams(token: token))
                connection.sendNotification(
                    "$/progress",
                    WorkDoneProgress(token: token, value: .init(kind: "begin", title: "Embedding your snippets for ask", cancellable: false, percentage: done * 100 / total)))
            }
            let tenth = done * 10 / total
            if tenth > lastTenth {
                lastTenth = tenth
                connection.sendNotification(
                    "$/progress",
                    WorkDoneProgress(token: token, value: .init(kind: "report", message: "\(done) of \(total) snippets", percentage: done * 100 / total)))
            }
        }
    }
}

struct WorkDoneProgressCreateParams: Encodable, Sendable {
    var token: JSONValue
}
