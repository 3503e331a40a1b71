import Foundation

/// A budget of queued work shared by a producer that waits and a consumer that gives back: what bounds the messages
/// read but not yet applied, so a client that sends faster than the server answers (or stops reading its replies,
/// which stops the server at its next write) makes the server stop reading instead of buffering without limit.
///
/// `acquire` waits while the budget is spent; one item is always admitted when nothing is queued, however large,
/// so a single message up to the framer's limit still goes through.
final class QueueBudget: @unchecked Sendable {
    // @unchecked: every stored property is read and written only with `lock` held.
    private let lock = NSLock()
    private let maximumItems: Int
    private let maximumBytes: Int
    private var items = 0
    private var bytes = 0
    private var waiting: [(bytes: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// A budget of `maximumItems` items and `maximumBytes` bytes.
    init(maximumItems: Int, maximumBytes: Int) {
        self.maximumItems = maximumItems
        self.maximumBytes = maximumBytes
    }

    private func fits(_ size: Int) -> Bool {
        items == 0 || (items < maximumItems && bytes + size <= maximumBytes)
    }

    /// Takes room for one item of `size` bytes, waiting (in arrival order) until there is some.
    func acquire(_ size: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if waiting.isEmpty && fits(size) {
                items += 1
                bytes += size
                lock.unlock()
                continuation.resume()
            } else {
                waiting.append((size, continuation))
                lock.unlock()
            }
        }
    }

    /// Gives back the room of one item of `size` bytes and admits whoever now fits.
    func release(_ size: Int) {
        lock.lock()
        items -= 1
        bytes -= size
        var admitted: [CheckedContinuation<Void, Never>] = []
        while let first = waiting.first, fits(first.bytes) {
            waiting.removeFirst()
            items += 1
            bytes += first.bytes
            admitted.append(first.continuation)
        }
        lock.unlock()
        for continuation in admitted { continuation.resume() }
    }
}

/// Chunks handed from a reading thread to an async consumer, at most `capacity` at a time: the thread blocks in
/// `put` (and so stops reading its descriptor) until the consumer has taken one.
final class ChunkChannel: @unchecked Sendable {
    // @unchecked: `chunks`, `isFinished` and `waiter` are touched only with `lock` held; `space` is thread-safe.
    private let lock = NSLock()
    private let space: DispatchSemaphore
    private var chunks: [[UInt8]] = []
    private var isFinished = false
    private var waiter: CheckedContinuation<[UInt8]?, Never>?

    init(capacity: Int) {
        space = DispatchSemaphore(value: capacity)
    }

    /// Called by the reading thread; blocks while `capacity` chunks are waiting to be taken.
    func put(_ chunk: [UInt8]) {
        space.wait()
        lock.lock()
        if let waiter {
            self.waiter = nil
            lock.unlock()
            space.signal()
            waiter.resume(returning: chunk)
            return
        }
        chunks.append(chunk)
        lock.unlock()
    }

    /// Called by the reading thread at the end of input.
    func finish() {
        lock.lock()
        isFinished = true
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        waiter?.resume(returning: nil)
    }

    /// The next chunk, waiting for one; nil once input has ended and every chunk was taken. One consumer only.
    func take() async -> [UInt8]? {
        await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8]?, Never>) in
            lock.lock()
            if !chunks.isEmpty {
                let chunk = chunks.removeFirst()
                lock.unlock()
                space.signal()
                continuation.resume(returning: chunk)
            } else if isFinished {
                lock.unlock()
                continuation.resume(returning: nil)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }
}
