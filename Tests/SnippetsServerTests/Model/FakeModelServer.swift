import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A deliberately misbehaving OpenAI-compatible server on 127.0.0.1: a tiny HTTP/1.1 server over POSIX sockets
/// whose every reply is scripted by the test (JSON, error statuses, stalls, closed connections, redirects).
final class FakeModelServer: @unchecked Sendable {
    // @unchecked: mutable state is only touched under `lock`; the socket threads own their file descriptors.

    /// What to do with one request.
    enum Behaviour: Sendable {
        /// Reply with this status, body and extra headers.
        case reply(status: Int, body: String, headers: [String: String] = [:])
        /// Say nothing for this long (or until the client hangs up, or `stop()`), then close. The seconds only bound a
        /// test whose client never lets go, as a gate bounds its wait: `stallsRunOut` says whether one ran out.
        case stall(seconds: Double)
        /// Close the connection without a byte.
        case close
        /// Reply as the first behaviour says, then keep the connection open without another byte, as `stall` does.
        indirect case thenStall(Behaviour, seconds: Double)
    }

    /// One request as received.
    struct Request: Sendable {
        var method: String
        var path: String
        /// Header names lowercased.
        var headers: [String: String]
        var body: String
        /// When it was read whole.
        var received = ContinuousClock.now

        /// The body as a JSON object.
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:] }
    }

    private let lock = NSLock()
    private let listener: Int32
    private let handler: @Sendable (Request) -> Behaviour
    private var recorded: [Request] = []
    private var active = 0
    private var mostActive = 0
    private var hangUps = 0
    private var runOut = 0
    private var stopped = false
    /// The port it listens on.
    let port: Int

    /// Starts listening on a free loopback port; `handler` scripts each reply.
    init(_ handler: @escaping @Sendable (Request) -> Behaviour) throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        self.handler = handler
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// The base URL, e.g. `http://127.0.0.1:4711`.
    var url: String { "http://127.0.0.1:\(port)" }
    /// Every request so far.
    var requests: [Request] { lock.withLock { recorded } }
    /// Requests to the chat completions endpoint.
    var chatRequests: [Request] { requests.filter { $0.path.hasSuffix("/chat/completions") } }
    /// The most requests whose reply it was working out at once (the handler running, before any byte of a reply).
    var mostConcurrent: Int { lock.withLock { mostActive } }
    /// Stalled requests whose client hung up before the stall ended.
    var clientHangUps: Int { lock.withLock { hangUps } }
    /// Stalls that ran their whole time with the client still connected: the server let go before the client did.
    /// Zero when a call has returned means the call returned while the server was still holding it.
    var stallsRunOut: Int { lock.withLock { runOut } }

    /// Stops listening and ends every stall in progress (not counted in `stallsRunOut`); connections replying
    /// finish on their own.
    func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        while !isStopped {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if isStopped { return }
                continue
            }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        guard let request = read(connection) else { return }
        lock.withLock {
            recorded.append(request)
            active += 1
            mostActive = max(mostActive, active)
        }
        let behaviour = handler(request)
        // No longer answering before a byte goes out: a client that has its reply may send the next request at once,
        // and that one must not be counted beside this one.
        lock.withLock { active -= 1 }
        respond(behaviour, on: connection)
    }

    /// Carries out `behaviour` on `connection`.
    private func respond(_ behaviour: Behaviour, on connection: Int32) {
        switch behaviour {
        case .close:
            return
        case .stall(let seconds):
            let deadline = Date().addingTimeInterval(seconds)
            while !isStopped {
                guard Date() < deadline else {
                    lock.withLock { runOut += 1 }
                    return
                }
                var pollDescriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
                if poll(&pollDescriptor, 1, 20) > 0 {
                    var byte: UInt8 = 0
                    if recv(connection, &byte, 1, Int32(MSG_PEEK)) <= 0 {
                        lock.withLock { hangUps += 1 }
                        return
                    }
                }
            }
        case .reply(let status, let body, let headers):
            var head = "HTTP/1.1 \(status) \(status < 400 ? "OK" : "Error")\r\nContent-Type: application/json\r\n"
            head += "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            write(connection, Array((head + "\r\n" + body).utf8))
        case .thenStall(let first, let seconds):
            respond(first, on: connection)
            respond(.stall(seconds: seconds), on: connection)
        }
    }

    private func read(_ connection: Int32) -> Request? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headerEnd: Int?
        var contentLength = 0
        while true {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            bytes += buffer[0..<count]
            if headerEnd == nil, let end = Self.find([13, 10, 13, 10], in: bytes) {
                headerEnd = end + 4
                let head = String(decoding: bytes[0..<end], as: UTF8.self)
                for line in head.split(separator: "\r\n").dropFirst() {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, parts[0].lowercased() == "content-length" {
                        contentLength = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
                    }
                }
            }
            if let headerEnd, bytes.count >= headerEnd + contentLength {
                let head = String(decoding: bytes[0..<(headerEnd - 4)], as: UTF8.self)
                let lines = head.split(separator: "\r\n")
                let requestLine = lines.first?.split(separator: " ") ?? []
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
                }
                return Request(
                    method: requestLine.count > 0 ? String(requestLine[0]) : "",
                    path: requestLine.count > 1 ? String(requestLine[1]) : "",
                    headers: headers,
                    body: String(decoding: bytes[headerEnd..<(headerEnd + contentLength)], as: UTF8.self))
            }
        }
    }

    private func write(_ connection: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return }
            offset += written
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<start + needle.count]) == needle {
            return start
        }
        return nil
    }

    // MARK: Replies

    /// A chat completion whose assistant message is `content`.
    static func completion(_ content: String, finishReason: String = "stop", refusal: String? = nil) -> Behaviour {
        var message: [String: Any] = ["role": "assistant", "content": content]
        if let refusal { message["refusal"] = refusal }
        let body: [String: Any] = ["id": "x", "object": "chat.completion", "choices": [["index": 0, "message": message, "finish_reason": finishReason]]]
        return .reply(status: 200, body: String(decoding: try! JSONSerialization.data(withJSONObject: body), as: UTF8.self))
    }

    /// llama-server's reply when the prompt does not fit.
    static func contextExceeded(prompt: Int, context: Int) -> Behaviour {
        .reply(status: 400, body: """
            {"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":\(prompt),"n_ctx":\(context)}}
            """)
    }
}
