/// The requests read and not yet answered: which are running, which the client cancelled, and when each arrived
/// (for `RequestTimings`). A value kept by `LanguageServer`.
///
/// **Invariant:** only requests read and not yet answered can be cancelled; a cancellation for any other id does
/// nothing, so it can never mark a later request with that id.
struct PendingRequests {
    private var running: [RequestID: Task<Result<ReplyPayload, ResponseError>, Never>] = [:]
    private var cancelled: Set<RequestID> = []
    /// Requests read and not yet answered, by id (a count, as a client may repeat an id).
    private var unanswered: [RequestID: Int] = [:]
    /// Method and read time of each request not answered yet, for `timings`.
    private var arrivals: [RequestID: (method: String, received: UInt64)] = [:]
    /// Server-side time per request, reported by `snippets/stats`.
    private(set) var timings = RequestTimings()

    /// Counts a request the reader has queued.
    mutating func read(_ id: RequestID) {
        unanswered[id, default: 0] += 1
    }

    /// A request taken off the queue: its method and when its frame was read.
    mutating func arrived(_ id: RequestID, method: String, received: UInt64) {
        arrivals[id] = (method, received)
    }

    /// `$/cancelRequest`: stops a running request (it is answered with -32800 when it ends) or marks a queued one
    /// so it is answered with -32800 without running.
    mutating func cancel(_ id: RequestID) {
        guard unanswered[id] != nil else { return }
        cancelled.insert(id)
        running[id]?.cancel()
    }

    /// Whether the client cancelled `id`; the mark is taken away.
    mutating func takeCancellation(of id: RequestID) -> Bool {
        cancelled.remove(id) != nil
    }

    /// `id` runs as `task` until `ended(_:)`.
    mutating func started(_ id: RequestID, as task: Task<Result<ReplyPayload, ResponseError>, Never>) {
        running[id] = task
    }

    mutating func ended(_ id: RequestID) {
        running[id] = nil
    }

    /// Bookkeeping right after `id`'s reply was written.
    mutating func answered(_ id: RequestID) {
        if let count = unanswered[id] { unanswered[id] = count > 1 ? count - 1 : nil }
        if let request = arrivals.removeValue(forKey: id) {
            timings.record(request.method, receivedAt: request.received)
        }
    }

    /// Cancels every running request (the end of input).
    func cancelAll() {
        for task in running.values { task.cancel() }
    }
}
