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
    /// Refuses every redirect, so a request (and its `Authorization` header) reaches the configured host only.
    final class RedirectRefusal: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        // @unchecked: no stored state.
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    /// No cookies, no cache, no redirects; the deadline is ours (`send`), so the session's own limits are loose.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 600
        configuration.timeoutIntervalForResource = 600
        return URLSession(configuration: configuration, delegate: RedirectRefusal(), delegateQueue: nil)
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
            if cancelled { task.cancel() } else { task.resume() }
        }

        func cancel() {
            lock.lock()
            isCancelled = true
            let task = self.task
            lock.unlock()
            task?.cancel()
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
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let http = response as? HTTPURLResponse {
                        continuation.resume(returning: HTTPReply(status: http.statusCode, body: data ?? Data()))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                handle.start(task)
            }
        } onCancel: {
            handle.cancel()
        }
    }

    /// The fault a transport error means, in words that never include the request's headers.
    static func fault(for error: any Error, url: URL, timeout: Double) -> AskModelError {
        if error is DeadlinePassed { return .timeout(seconds: timeout) }
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
