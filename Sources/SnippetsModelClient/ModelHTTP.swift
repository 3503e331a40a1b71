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

/// The HTTP side of the model client: one session that follows no redirects, a whole-call deadline, cancellation
/// that cancels the request, and transport errors turned into `AskModelError`s.
enum ModelHTTP {
    /// The most bytes a reply may have. A chat completion for an ask is a few kilobytes; a server that keeps
    /// sending is cut off here instead of filling memory until the deadline (over a gigabyte in two seconds on
    /// loopback).
    static let maximumReplyBytes = 4 * 1024 * 1024

    /// A reply cut off at `maximumReplyBytes`.
    struct ReplyTooLarge: Error {}

    /// Refuses every redirect, so a request (and its `Authorization` header) reaches the configured host only, and
    /// collects each task's reply, cancelling a task whose reply grows past `maximumReplyBytes`.
    final class RedirectRefusal: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        // @unchecked: `receivers` (and each receiver's body) is only touched under `lock`.
        /// A class, so appending to `body` in the dictionary does not copy it (a struct copied 4 MB per chunk).
        private final class Receiver {
            let continuation: CheckedContinuation<HTTPReply, any Error>
            var body = Data()

            init(_ continuation: CheckedContinuation<HTTPReply, any Error>) {
                self.continuation = continuation
            }
        }

        private let lock = NSLock()
        private var receivers: [Int: Receiver] = [:]

        /// Delivers the outcome of `task` to `continuation`: when it completes, when its reply grows too large, or
        /// when `finish` is called for it (a cancellation), whichever comes first.
        func register(_ task: URLSessionTask, _ continuation: CheckedContinuation<HTTPReply, any Error>) {
            lock.lock()
            receivers[task.taskIdentifier] = Receiver(continuation)
            lock.unlock()
        }

        /// Resumes the caller waiting on task `identifier` with `outcome` now, if it is still waiting; whatever the
        /// session reports for the task later is ignored. Cancellation uses it, so a deadline never waits for the
        /// session to work through a flood of data already received.
        func finish(_ identifier: Int, _ outcome: Result<HTTPReply, any Error>) {
            lock.lock()
            let receiver = receivers.removeValue(forKey: identifier)
            lock.unlock()
            receiver?.continuation.resume(with: outcome)
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
            // A declared length over the limit is refused before any of the body is read.
            guard response.expectedContentLength <= Int64(maximumReplyBytes) else {
                finish(dataTask.taskIdentifier, .failure(ReplyTooLarge()))
                completionHandler(.allow)
                return dataTask.cancel()
            }
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            lock.lock()
            let receiver = receivers[dataTask.taskIdentifier]
            let tooLarge = receiver.map { $0.body.count + data.count > maximumReplyBytes } ?? false
            if !tooLarge { receiver?.body.append(data) }
            lock.unlock()
            if tooLarge {
                finish(dataTask.taskIdentifier, .failure(ReplyTooLarge()))
                dataTask.cancel()
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            lock.lock()
            let body = receivers[task.taskIdentifier]?.body ?? Data()
            lock.unlock()
            if let error {
                finish(task.taskIdentifier, .failure(error))
            } else if let http = task.response as? HTTPURLResponse {
                finish(task.taskIdentifier, .success(HTTPReply(status: http.statusCode, body: body)))
            } else {
                finish(task.taskIdentifier, .failure(URLError(.badServerResponse)))
            }
        }
    }

    /// The session's delegate (it also collects replies).
    static let delegate = RedirectRefusal()

    /// No cookies, no cache, no redirects; the deadline is ours (`send`), so the session's own limits are loose.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 600
        configuration.timeoutIntervalForResource = 600
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }()

    /// The URLSession task of one request, so cancelling the Swift task cancels it.
    final class TaskHandle: @unchecked Sendable {
        // @unchecked: every access goes through `lock`.
        private let lock = NSLock()
        private var task: URLSessionTask?
        private var isCancelled = false

        func start(_ task: URLSessionTask) {
            lock.lock()
            self.task = task
            let cancelled = isCancelled
            lock.unlock()
            if cancelled { Self.stop(task) } else { task.resume() }
        }

        func cancel() {
            lock.lock()
            isCancelled = true
            let task = self.task
            lock.unlock()
            if let task { Self.stop(task) }
        }

        /// Cancels `task` and answers its caller at once (as the session would, with `.cancelled`, once it got to it).
        private static func stop(_ task: URLSessionTask) {
            task.cancel()
            ModelHTTP.delegate.finish(task.taskIdentifier, .failure(URLError(.cancelled)))
        }
    }

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
        let handle = TaskHandle()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPReply, any Error>) in
                // Delegate-delivered (not a completion handler), so the reply's size is checked as it arrives.
                let task = session.dataTask(with: request)
                delegate.register(task, continuation)
                handle.start(task)
            }
        } onCancel: {
            handle.cancel()
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
