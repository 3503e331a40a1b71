import Foundation

/// Runs `work` on a thread of its own and waits for it without holding a thread of Swift's cooperative pool.
///
/// Swift Testing runs tests on the cooperative pool, which has one thread per core (two on CI). A test that
/// computes for seconds on that pool starves every other test's timers and replies, so the long synchronous ones
/// (hostile-input timings, deep nesting on a small stack, loading the shared corpora) run here instead. Assert on
/// the result in the test itself: an expectation recorded on this thread would have no test to belong to.
public func onOwnThread<Result: Sendable>(stackSize: Int = 8 << 20, _ work: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: work()) }
        thread.stackSize = stackSize
        thread.start()
    }
}

/// `onOwnThread` for work that throws: the error is rethrown in the test.
public func onOwnThread<Result: Sendable>(
    stackSize: Int = 8 << 20, _ work: @escaping @Sendable () throws -> Result
) async throws -> Result {
    try await onOwnThread(stackSize: stackSize) { Swift.Result { try work() } }.get()
}
