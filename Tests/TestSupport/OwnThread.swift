import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Runs `work` on a thread of its own and waits for it without holding a thread of Swift's cooperative pool.
///
/// Swift Testing runs tests on the cooperative pool, which has one thread per core (two on CI). A test that
/// computes for seconds on that pool starves every other test's timers and replies, so the long synchronous ones
/// (deep nesting on a small stack, loading the shared corpora) run here instead. Assert on
/// the result in the test itself: an expectation recorded on this thread would have no test to belong to.
///
/// The thread also runs at a lower CPU priority (nice 10, on Linux): on two cores, two such threads computing for
/// half a minute would otherwise take the CPU from the pool's threads as surely as running on them. Nothing here is
/// timed: how long work takes is a benchmark's figure (`snippets-lsp bench --hostile`), not a test's assertion.
public func onOwnThread<Result: Sendable>(stackSize: Int = 8 << 20, _ work: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        let thread = Thread {
            lowerThisThreadsPriority()
            continuation.resume(returning: work())
        }
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

/// Nice 10 for the calling thread only: on Linux the nice value is per thread, and `PRIO_PROCESS` with 0 names the
/// calling thread (setpriority(2), NOTES). Elsewhere nothing.
func lowerThisThreadsPriority() {
    #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
    #endif
}
