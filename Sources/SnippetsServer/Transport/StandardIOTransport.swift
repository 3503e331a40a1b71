import Foundation

/// stdin/stdout: stdin is read on a dedicated thread (a blocking read must not hold a concurrency thread);
/// stdout carries protocol bytes only.
public final class StandardIOTransport: MessageTransport {
    public let incoming: AsyncStream<[UInt8]>
    private let input: FileHandle
    private let output: FileHandle
    // Writes come from the server actor and, rarely, from a handler task; the lock keeps frames whole.
    private let writeLock = NSLock()

    /// Reads `input` (stdin by default) and writes `output` (stdout by default).
    public init(input: FileHandle = .standardInput, output: FileHandle = .standardOutput) {
        self.input = input
        self.output = output
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
        incoming = stream
        let thread = Thread {
            // read(2) into one reused buffer: `availableData` allocated a buffer and a `Data` per read, then the
            // bytes were copied again; each message costs one copy of its bytes now.
            let descriptor = input.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 {
                    continuation.finish()
                    return
                }
                continuation.yield(Array(buffer[..<count]))
            }
        }
        thread.name = "snippets-lsp stdin"
        thread.start()
    }

    public func send(_ bytes: [UInt8]) {
        writeLock.lock()
        defer { writeLock.unlock() }
        output.write(Data(bytes))
    }

    public func close() {}
}
