import CCurlLoader
import Foundation
import SnippetsCore

/// A request, as the model client sends it. Our own type, not `URLRequest`: on Linux that lives in
/// FoundationNetworking, whose loading alone (libcurl and ~30 libraries behind it) cost every start of the process
/// 7-8 ms, model or not.
struct HTTPRequest: Sendable {
    var url: URL
    /// "GET" or "POST" (anything else is sent as a custom method).
    var method = "GET"
    /// Sent in this order; a line holding CR or LF is left out.
    var headers: [(name: String, value: String)] = []
    var body: Data?
    /// The whole transfer, connecting included.
    var timeoutSeconds: Double = 60
}

/// A status and body, as the model client needs them.
struct HTTPReply: Sendable {
    var status: Int
    var body: Data
}

/// The HTTP side of the model client: libcurl's C API on a thread per request, following no redirects, a whole-call
/// deadline, cancellation that stops the transfer, and transport errors turned into `AskModelError`s.
///
/// **Invariant:** libcurl is loaded (`snippets_curl_load`, with dlopen) only when a request is first performed, on
/// its transfer thread; nothing else in the process maps it. Without it a request fails as `LibcurlUnavailable`.
///
/// Not URLSession: FoundationNetworking on Linux burned 0.5-0.95 s of CPU per second while a request waited on a
/// server that stalled or trickled, and did not reliably stop reading a reply it had cancelled (from 3 MB to the
/// whole 2 GB of a flood were read and queued after the cancel: 0.3-2.2 GB of memory, never returned).
enum ModelHTTP {
    /// The most bytes a reply may have. A chat completion for an ask is a few kilobytes; a server that keeps
    /// sending is cut off here instead of filling memory until the deadline (over a gigabyte in two seconds on
    /// loopback).
    static let maximumReplyBytes = 4 * 1024 * 1024

    /// A reply cut off at `maximumReplyBytes`.
    struct ReplyTooLarge: Error {}

    /// A libcurl failure that has no `URLError` counterpart; `code` is the `CURLcode`.
    struct TransferFailed: Error {
        var code: Int
    }

    /// libcurl could not be loaded, so no request can be sent; `status` says why, `library` names the file.
    struct LibcurlUnavailable: Error {
        var status: snippets_curl_load_status
        var library: String
    }

    /// Loads libcurl once per process, on the first transfer thread that needs it (dlopen reads files; never on
    /// Swift's cooperative threads), and says whether it is there.
    private static let libcurl: Result<Void, LibcurlUnavailable> = {
        let status = snippets_curl_load()
        if status == SNIPPETS_CURL_LOADED { return .success(()) }
        return .failure(LibcurlUnavailable(status: status, library: String(cString: snippets_curl_library_name())))
    }()

    /// One request, start to finish, on a thread of its own: a libcurl easy handle in a multi handle of its own,
    /// driven by `curl_multi_poll`, which sleeps until the socket, the transfer's own clock or `cancel` wakes it. So
    /// waiting on a server that stalls costs nothing, and a cancel, a deadline or a cut-off closes the connection at
    /// once: nothing of a flood is read after its caller was answered.
    ///
    /// **Invariant:** the caller is answered exactly once, by whichever comes first: the transfer's end, the cut-off
    /// at `maximumReplyBytes`, or `cancel`. The transfer thread only reads and writes the handles it made.
    final class Exchange: @unchecked Sendable {
        // @unchecked: `continuation`, `isCancelled` and `multi` are only touched under `lock`; `body` only on the
        // transfer thread (the write callback runs inside `curl_multi_perform` there).
        private let lock = NSLock()
        private var continuation: CheckedContinuation<HTTPReply, any Error>?
        /// Set by `cancel`, which may come before `start` (a Swift task cancelled before it sent anything).
        private var isCancelled = false
        /// The running transfer's multi handle, for `cancel` to wake (`curl_multi_wakeup` is thread-safe).
        private var multi: UnsafeMutableRawPointer?
        private var body = Data()

        /// Sends `request`; its outcome goes to `continuation`: when it completes, when its reply grows too large,
        /// or when `cancel` is called, whichever comes first.
        func start(_ request: HTTPRequest, _ continuation: CheckedContinuation<HTTPReply, any Error>) {
            lock.lock()
            let isCancelled = self.isCancelled
            if !isCancelled { self.continuation = continuation }
            lock.unlock()
            if isCancelled { return continuation.resume(throwing: URLError(.cancelled)) }
            let thread = Thread { self.perform(request) }
            thread.name = "snippets-lsp.model-http"
            thread.start()
        }

        /// Cancels the request and answers its caller at once; the transfer thread wakes and closes the connection.
        func cancel() {
            lock.lock()
            isCancelled = true
            if let multi { snippets_curl_multi_wakeup(multi) }
            lock.unlock()
            finish(.failure(URLError(.cancelled)))
        }

        /// Whether the caller has been answered (the transfer then stops at its next step).
        private var isOver: Bool {
            lock.lock()
            defer { lock.unlock() }
            return continuation == nil
        }

        /// Resumes the caller with `outcome` now, if it is still waiting; later outcomes are ignored.
        private func finish(_ outcome: Result<HTTPReply, any Error>) {
            lock.lock()
            let continuation = self.continuation
            self.continuation = nil
            lock.unlock()
            continuation?.resume(with: outcome)
        }

        /// The transfer, on its own thread; returns when it ended or its caller was answered.
        private func perform(_ request: HTTPRequest) {
            guard !isOver else { return }
            if case .failure(let unavailable) = ModelHTTP.libcurl { return finish(.failure(unavailable)) }
            guard let easy = snippets_curl_easy_init() else { return finish(.failure(TransferFailed(code: Int(CURLE_FAILED_INIT.rawValue)))) }
            guard let multi = snippets_curl_multi_init() else {
                snippets_curl_easy_cleanup(easy)
                return finish(.failure(TransferFailed(code: Int(CURLE_FAILED_INIT.rawValue))))
            }
            var headers: UnsafeMutablePointer<curl_slist>?
            defer {
                lock.lock()
                self.multi = nil
                lock.unlock()
                snippets_curl_multi_remove_handle(multi, easy)
                snippets_curl_easy_cleanup(easy)
                snippets_curl_multi_cleanup(multi)
                snippets_curl_slist_free_all(headers)
            }
            headers = configure(easy, for: request)
            snippets_curl_multi_add_handle(multi, easy)
            lock.lock()
            self.multi = multi
            lock.unlock()
            var running: Int32 = 1
            while !isOver {
                guard snippets_curl_multi_perform(multi, &running) == CURLM_OK else {
                    return finish(.failure(TransferFailed(code: Int(CURLE_FAILED_INIT.rawValue))))
                }
                if running == 0 { break }
                // Sleeps until the socket is ready, curl's own timers are due, or `cancel` wakes it (at most 1 s).
                _ = snippets_curl_multi_poll(multi, 1000)
            }
            if isOver { return }
            let result = snippets_curl_multi_result(multi)
            if result == Int32(CURLE_OK.rawValue) {
                finish(.success(HTTPReply(status: snippets_curl_response_code(easy), body: body)))
            } else {
                finish(.failure(ModelHTTP.error(forCurlCode: Int(result))))
            }
        }

        /// Sets up `easy` for `request`: its URL, method, headers and body, the deadline, the reply cap; no
        /// redirects, cookies, credentials from files or compressed replies. Returns the header list to free.
        private func configure(_ easy: UnsafeMutableRawPointer, for request: HTTPRequest) -> UnsafeMutablePointer<curl_slist>? {
            snippets_curl_set_string(easy, CURLOPT_URL, request.url.absoluteString)
            snippets_curl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
            snippets_curl_set_long(easy, CURLOPT_FOLLOWLOCATION, 0)
            snippets_curl_set_long(easy, CURLOPT_NOSIGNAL, 1)
            snippets_curl_set_long(easy, CURLOPT_NETRC, Int(CURL_NETRC_IGNORED.rawValue))
            // The whole transfer, connecting included; the caller's own deadline (`withDeadline`) comes first.
            snippets_curl_set_long(easy, CURLOPT_TIMEOUT_MS, max(1, Int(request.timeoutSeconds * 1000)))
            // A declared length over the cap is refused before the body is read; an undeclared one is cut by `receive`.
            snippets_curl_set_size(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(ModelHTTP.maximumReplyBytes))
            let context = Unmanaged.passUnretained(self).toOpaque()
            snippets_curl_set_pointer(easy, CURLOPT_WRITEDATA, context)
            snippets_curl_set_write_callback(easy) { data, size, count, context in
                guard let context else { return 0 }
                return Unmanaged<Exchange>.fromOpaque(context).takeUnretainedValue().receive(data, size * count)
            }
            snippets_curl_set_long(easy, CURLOPT_NOPROGRESS, 0)
            snippets_curl_set_pointer(easy, CURLOPT_XFERINFODATA, context)
            snippets_curl_set_xferinfo_callback(easy) { context, _, _, _, _ in
                guard let context else { return 1 }
                return Unmanaged<Exchange>.fromOpaque(context).takeUnretainedValue().isOver ? 1 : 0
            }
            let method = request.method
            if method == "POST" {
                // Copied by libcurl (COPYPOSTFIELDS), so the bytes need not outlive this call.
                var body = request.body ?? Data()
                snippets_curl_set_size(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
                body.append(0)  // a readable byte even for an empty body; the size above excludes it
                body.withUnsafeMutableBytes { bytes in
                    _ = snippets_curl_set_pointer(easy, CURLOPT_COPYPOSTFIELDS, bytes.baseAddress)
                }
            } else if method == "GET" {
                snippets_curl_set_long(easy, CURLOPT_HTTPGET, 1)
            } else {
                snippets_curl_set_string(easy, CURLOPT_CUSTOMREQUEST, method)
            }
            // No `Expect: 100-continue`: a server that never answers it would cost a second per request.
            var headers = snippets_curl_slist_append(nil, "Expect:")
            for (name, value) in request.headers {
                let line = "\(name): \(value)"
                // A header value is never split into two header lines.
                guard !line.contains(where: { $0 == "\r" || $0 == "\n" }) else { continue }
                headers = snippets_curl_slist_append(headers, line)
            }
            snippets_curl_set_headers(easy, headers)
            return headers
        }

        /// The write callback's work: keeps `count` bytes at `data`, or cuts the reply off at the cap (returning
        /// less than `count` makes libcurl stop the transfer and close the connection).
        private func receive(_ data: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
            guard !isOver else { return 0 }
            guard body.count + count <= ModelHTTP.maximumReplyBytes else {
                body = Data()
                finish(.failure(ReplyTooLarge()))
                return 0
            }
            if let data, count > 0 { body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: count) }
            return count
        }
    }

    /// The error a failed transfer's `CURLcode` means, as `URLError` where one fits (so `fault(for:)` has one
    /// vocabulary), else `TransferFailed`.
    static func error(forCurlCode code: Int) -> any Error {
        let urlCode: URLError.Code
        switch UInt32(truncatingIfNeeded: code) {
        case CURLE_FILESIZE_EXCEEDED.rawValue, CURLE_WRITE_ERROR.rawValue: return ReplyTooLarge()
        case CURLE_OPERATION_TIMEDOUT.rawValue: urlCode = .timedOut
        case CURLE_ABORTED_BY_CALLBACK.rawValue: urlCode = .cancelled
        case CURLE_COULDNT_CONNECT.rawValue: urlCode = .cannotConnectToHost
        case CURLE_COULDNT_RESOLVE_HOST.rawValue, CURLE_COULDNT_RESOLVE_PROXY.rawValue: urlCode = .cannotFindHost
        case CURLE_GOT_NOTHING.rawValue, CURLE_RECV_ERROR.rawValue, CURLE_SEND_ERROR.rawValue, CURLE_PARTIAL_FILE.rawValue:
            urlCode = .networkConnectionLost
        case CURLE_WEIRD_SERVER_REPLY.rawValue, CURLE_BAD_CONTENT_ENCODING.rawValue, CURLE_HTTP2.rawValue,
            CURLE_HTTP2_STREAM.rawValue:
            urlCode = .cannotParseResponse
        case CURLE_PEER_FAILED_VERIFICATION.rawValue: urlCode = .serverCertificateUntrusted
        case CURLE_SSL_CONNECT_ERROR.rawValue, CURLE_SSL_CERTPROBLEM.rawValue, CURLE_SSL_CIPHER.rawValue,
            CURLE_SSL_CACERT_BADFILE.rawValue, CURLE_SSL_ISSUER_ERROR.rawValue, CURLE_SSL_PINNEDPUBKEYNOTMATCH.rawValue,
            CURLE_SSL_INVALIDCERTSTATUS.rawValue, CURLE_USE_SSL_FAILED.rawValue, CURLE_SSL_SHUTDOWN_FAILED.rawValue,
            CURLE_SSL_CRL_BADFILE.rawValue, CURLE_SSL_ENGINE_NOTFOUND.rawValue, CURLE_SSL_ENGINE_SETFAILED.rawValue:
            urlCode = .secureConnectionFailed
        case CURLE_UNSUPPORTED_PROTOCOL.rawValue, CURLE_URL_MALFORMAT.rawValue: urlCode = .unsupportedURL
        default: return TransferFailed(code: code)
        }
        return URLError(urlCode)
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
    static func send(_ request: HTTPRequest) async throws -> HTTPReply {
        let exchange = Exchange()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPReply, any Error>) in
                exchange.start(request, continuation)
            }
        } onCancel: {
            exchange.cancel()
        }
    }

    /// The proxy variable that would carry a plain-http request to `url` through another host (libcurl reads
    /// `http_proxy` and the others from the environment), or nil. Over https a proxy only sees
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
        if let unavailable = error as? LibcurlUnavailable { return .unreachable(detail: unavailable.reason) }
        let place = "\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? "")"
        if let failed = error as? TransferFailed { return .unreachable(detail: "\(place): network error (libcurl \(failed.code))") }
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

extension ModelHTTP.LibcurlUnavailable {
    /// Why no model can be reached, and what to install, for the user.
    var reason: String {
        #if os(Linux)
            let install = "e.g. apt-get install libcurl4"
        #else
            let install = "with the system's package manager"
        #endif
        switch status {
        case SNIPPETS_CURL_NOT_FOUND: return "the model client needs libcurl and \(library) could not be loaded; install it, \(install)"
        case SNIPPETS_CURL_TOO_OLD: return "\(library) is too old for the model client (libcurl 7.68 or newer is needed); update it, \(install)"
        default: return "libcurl (\(library)) failed to initialise"
        }
    }
}
