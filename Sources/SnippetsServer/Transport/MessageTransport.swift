import Foundation

/// Where the server's bytes come from and go to: stdio in production, an in-memory pipe in tests.
public protocol MessageTransport: Sendable {
    /// Chunks of bytes as they arrive; the stream finishes at the end of input.
    var incoming: AsyncStream<[UInt8]> { get }
    /// Writes bytes (already framed) to the peer, in call order.
    func send(_ bytes: [UInt8])
    /// Called once the server is done; closes the output side.
    func close()
}

/// One direction of an in-memory pipe.
private struct PipeEnd: Sendable {
    let stream: AsyncStream<[UInt8]>
    let continuation: AsyncStream<[UInt8]>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
    }
}

/// A pair of connected in-memory transports, so tests run the real server without processes or pipes.
public struct InMemoryTransport: MessageTransport {
    public let incoming: AsyncStream<[UInt8]>
    private let outgoing: AsyncStream<[UInt8]>.Continuation

    /// Two ends: what `client` sends, `server` receives, and the other way round.
    public static func pair() -> (client: InMemoryTransport, server: InMemoryTransport) {
        let toServer = PipeEnd()
        let toClient = PipeEnd()
        return (
            InMemoryTransport(incoming: toClient.stream, outgoing: toServer.continuation),
            InMemoryTransport(incoming: toServer.stream, outgoing: toClient.continuation)
        )
    }

    public func send(_ bytes: [UInt8]) { outgoing.yield(bytes) }
    public func close() { outgoing.finish() }
}
