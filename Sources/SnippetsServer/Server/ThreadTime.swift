import Foundation

/// Processor time spent by the calling thread: what work cost, whatever else the machine was doing meanwhile (a wall
/// clock also counts the time the thread waited for a core).
enum ThreadTime {
    /// The result of `work` and the processor time the calling thread spent on it.
    static func measuring<Result>(_ work: () -> Result) -> (Result, Duration) {
        let began = now()
        let result = work()
        return (result, now() - began)
    }

    private static func now() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
    }
}
