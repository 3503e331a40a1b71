import Foundation
import SnippetsCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A status and body, as the model client needs them.
struct HTTPReply: Sendable {
    var status: Int
    var body: Data
}

/// The HTTP side of the model client: a session per request that follows no redirects, a whole-call deadline,
/// cancellation that cancels the request, and transport errors turned into `AskModelError`s.
enum ModelHTTP {
    /// The most bytes a reply may have. A chat completion for an ask is a few kilobytes; a server that keeps
    /// sending is cut off here instead of filling memory until the deadline (over a gigabyte in two seconds on
    /// loopback).
    static let maximumReplyBytes = 4 * 1024 * 1024

    /// A reply cut off at `maximumReplyBytes`.
    struct ReplyTooLarge: Error {}

    /// One request, start to finish: its own session (so its own delegate queue), refusing every redirect so the
    /// request (and its `Authorization` header) reaches the configured host only, and collecting the reply, cut
    /// off at `maximumReplyBytes`.
    ///
    /// FoundationNetworking on Linux gives a delegate no backpressure (every chunk libcurl reads is queued for the
    /// delegate), and it does not reliably stop reading a reply it has cancelled: against a server flooding over
    /// loopback, from 3 MB to the whole 2 GB were read after the cancel. Two consequences shape this type:
    /// - A session per request, not one shared: on a shared delegate queue the next request's chunks waited behind
    ///   that backlog (0.16–0.92 s for the first 4 MB of the next reply, against 12 ms with a queue of its own).
    /// - Creating and starting the task runs on `ModelHTTP.sessionQueue`, its own thread: both wait (`sync`) on the
    ///   one queue all sessions share, which a flood keeps busy. Made from Swift's cooperative threads, or from any
    ///   queue of the shared pool, that wait took one of the pool's threads (as many as the cores) and held up
    ///   completions for about a second (seen in a stack dump: two pool threads waiting in `dataTask(with:)` and
    ///   `invalidateAndCancel`). Letting the session go afterwards never waits: `cancel` and
    ///   `finishTasksAndInvalidate` are asynchronous.
    final class Exchange: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        // @unchecked: `continuation`, `body`, `session`, `task` and `isCancelled` are only touched under `lock`.
        private let lock = NSLock()
        private var continuation: CheckedContinuation<HTTPReply, any Error>?
        private var body = Data()
        private var session: URLSession?
        private var task: URLSessionTask?
        /// Set by `cancel`, which may come before `start` (a Swift task cancelled before it sent anything).
        private var isCancelled = false

        /// Sends `request`; its outcome goes to `continuation`: when it completes, when its reply grows too large,
        /// or when `cancel` is called, whichever comes first.
        func start(_ request: URLRequest, _ continuation: CheckedContinuation<HTTPReply, any Error>) {
            lock.lock()
            let isCancelled = self.isCancelled
            if !isCancelled { self.continuation = continuation }
            lock.unlock()
            if isCancelled { return continuation.resume(throwing: URLError(.cancelled)) }
            ModelHTTP.sessionQueue.async { self.begin(request) }
        }

        private func begin(_ request: URLRequest) {
            lock.lock()
            let isOver = continuation == nil
            lock.unlock()
            if isOver { return }
            let session = URLSession(configuration: ModelHTTP.configuration, delegate: self, delegateQueue: nil)
            // Delegate-delivered (not a completion handler), so the reply's size is checked as it arrives.
            let task = session.dataTask(with: request)
            lock.lock()
            let isOverNow = continuation == nil
            if !isOverNow { (self.session, self.task) = (session, task) }
            lock.unlock()
            // Over before it started: the task never runs, so only cancelling it lets the session end. Waiting here
            // is fine (this is `sessionQueue`).
            if isOverNow { session.invalidateAndCancel() } else { task.resume() }
        }

        /// Cancels the request and answers its caller at once (as the session would, with `.cancelled`, once it got
        /// to it).
        func cancel() {
            lock.lock()
            isCancelled = true
            lock.unlock()
            finish(.failure(URLError(.cancelled)))
        }

        /// Resumes the caller with `outcome` now, if it is still waiting, and lets the session go (cancelling the
        /// request if it is still running); whatever the session reports later is ignored. So a deadline or a
        /// cut-off never waits for the session to work through data already received.
        private func finish(_ outcome: Result<HTTPReply, any Error>) {
            lock.lock()
            let continuation = self.continuation
            self.continuation = nil
            body = Data()
            let (session, task) = (self.session, self.task)
            (self.session, self.task) = (nil, nil)
            lock.unlock()
            guard let continuation else { return }
            continuation.resume(with: outcome)
            // The session holds its delegate (this) until it is invalidated, which waits for the task to end.
            task?.cancel()
            session?.finishTasksAndInvalidate()
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            completionHandler(.allow)
            // A declared length over the limit is refused before any of the body is read.
            if response.expectedContentLength > Int64(maximumReplyBytes) { finish(.failure(ReplyTooLarge())) }
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            lock.lock()
            let isWaiting = continuation != nil
            let isTooLarge = isWaiting && body.count + data.count > maximumReplyBytes
            if isWaiting && !isTooLarge { body.append(data) }
            lock.unlock()
            if isTooLarge { finish(.failure(ReplyTooLarge())) }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            lock.lock()
            let body = self.body
            lock.unlock()
            if let error {
                finish(.failure(error))
            } else if let http = task.response as? HTTPURLResponse {
                finish(.success(HTTPReply(status: http.statusCode, body: body)))
            } else {
                finish(.failure(URLError(.badServerResponse)))
            }
        }
    }

    /// Where requests are created and started (see `Exchange`). A serial queue, because libdispatch gives a serial
    /// queue a thread of its own when the shared pool is busy, where a concurrent queue would take a pool thread.
    static let sessionQueue = DispatchQueue(label: "snippets-lsp.model-http")

    /// No cookies, no cache, no redirects; the deadline is ours (`send`), so the session's own limits are loose.
    static let configuration: URLSessionConfiguration = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 600
        configuration.timeoutIntervalForResource = 600
        return configuration
    }()

    /// Why the deadline passed.
    struct DeadlinePassed: Error {}

    /// Runs `body`, cancelling it after `seconds`: then `DeadlinePassed` is thrown.
    static func withDeadline<T: Sendable>(
        seconds: Double, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
                return nil
            }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let value = next { return value }
                if !Task.isCancelled { throw DeadlinePassed() }
            }
            throw CancellationError()
        }
    }

    /// Sends `request`; every status comes back as a reply, transport failures as errors.
    static func send(_ request: URLRequest) async throws -> HTTPReply {
        let exchange = Exchange()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPReply, any Error>) in
                exchange.start(request, continuation)
            }
        } onCancel: {
            exchange.cancel()
        }
    }

    /// The proxy variable that would carry a plain-http request to `url` through another host (libcurl, under
    /// URLSession on Linux, reads `http_proxy` whatever the session says), or nil. Over https a proxy only sees
    /// an encrypted tunnel.
    static func proxyVariable(for url: URL, environment: [String: String]) -> String? {
        guard url.scheme?.lowercased() == "http", let host = url.host?.lowercased() else { return nil }
        guard let name = ["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"].first(where: { !(environment[$0] ?? "").isEmpty })
        else { return nil }
        let exempt = (environment["no_proxy"] ?? environment["NO_PROXY"] ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        for entry in exempt where !entry.isEmpty {
            let domain = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            if entry == "*" || host == domain || host.hasSuffix("." + domain) { return nil }
        }
        return name
    }

    /// The fault a transport error means, in words that never include the request's headers.
    static func fault(for error: any Error, url: URL, timeout: Double) -> AskModelError {
        if error is DeadlinePassed { return .timeout(seconds: timeout) }
        if error is ReplyTooLarge {
            return .schemaMismatch(detail: "the reply was longer than \(maximumReplyBytes / 1024 / 1024) MB; a chat completion is a few kilobytes")
        }
        let place = "\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? "")"
        guard let urlError = error as? URLError else {
            return .unreachable(detail: error is CancellationError ? "the ask was cancelled" : "\(place): \(type(of: error))")
        }
        switch urlError.code {
        case .timedOut: return .timeout(seconds: timeout)
        case .cancelled: return .unreachable(detail: "the ask was cancelled")
        case .cannotConnectToHost: return .unreachable(detail: "nothing answers at \(place)")
        case .cannotFindHost, .dnsLookupFailed: return .unreachable(detail: "unknown host \(url.host ?? "?")")
        case .notConnectedToInternet: return .unreachable(detail: "no network")
        case .networkConnectionLost, .zeroByteResource, .badServerResponse, .cannotParseResponse:
            return .unreachable(detail: "\(place) closed the connection without a complete reply")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            return .unreachable(detail: "the TLS connection to \(place) failed")
        default: return .unreachable(detail: "\(place): network error \(urlError.code.rawValue)")
        }
    }
}
