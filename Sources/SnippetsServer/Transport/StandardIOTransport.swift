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
            while true {
                let data = input.availableData
                if data.isEmpty {
                    continuation.finish()
                    return
                }
                continuation.yield([UInt8](data))
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
