import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// stdin/stdout: stdin is read on a dedicated thread (a blocking read must not hold a concurrency thread);
/// stdout carries protocol bytes only.
///
/// **Invariant:** at most `bufferedChunks` chunks (64 KiB each) read from stdin wait for the server; beyond that the
/// thread stops reading, so a client that outpaces the server meets a full pipe instead of a growing server.
/// Replies are written synchronously (nothing waits to be written in memory); once stdout is gone (`EPIPE`), output
/// is dropped, so the server goes on to read the end of input and exits.
public final class StandardIOTransport: MessageTransport {
    public let incoming: AsyncStream<[UInt8]>
    private let output: FileHandle
    // Writes come from the server actor and, rarely, from a handler task; the lock keeps frames whole.
    private let writeLock = NSLock()
    // Set once a write failed for good; read and written with `writeLock` held.
    nonisolated(unsafe) private var isOutputClosed = false

    /// How many chunks read from stdin may wait for the server.
    static let bufferedChunks = 16

    /// Reads `input` (stdin by default) and writes `output` (stdout by default).
    public init(input: FileHandle = .standardInput, output: FileHandle = .standardOutput) {
        self.output = output
        // A closed stdout must be an error from write(2), not a signal that kills the server mid-reply.
        signal(SIGPIPE, SIG_IGN)
        let channel = ChunkChannel(capacity: Self.bufferedChunks)
        incoming = AsyncStream(unfolding: { await channel.take() })
        let thread = Thread {
            // read(2) into one reused buffer: `availableData` allocated a buffer and a `Data` per read, then the
            // bytes were copied again; each message costs one copy of its bytes now.
            let descriptor = input.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 {
                    channel.finish()
                    return
                }
                channel.put(Array(buffer[..<count]))
            }
        }
        thread.name = "snippets-lsp stdin"
        thread.start()
    }

    public func send(_ bytes: [UInt8]) {
        writeLock.lock()
        defer { writeLock.unlock() }
        guard !isOutputClosed else { return }
        let descriptor = output.fileDescriptor
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                isOutputClosed = true
                return
            }
            written += count
        }
    }

    public func close() {}
}
