import Foundation

/// How long the server took per request, by method: from the moment a request's frame was read off the input to
/// the moment its reply was written, so it covers decoding, waiting in the in-order queue, the handler, encoding and
/// the write. Kept in a bounded ring per method (the most recent `window` requests), so it costs a clock read and an
/// array store per request and its memory does not grow. Reported by `snippets/stats`.
public struct RequestTimings: Sendable {
    /// How many recent requests per method the percentiles are taken over.
    public static let window = 1024

    /// One method's figures.
    struct Ring: Sendable {
        var count = 0
        var nanoseconds: [UInt64] = []

        mutating func record(_ elapsed: UInt64) {
            if nanoseconds.count < RequestTimings.window {
                nanoseconds.append(elapsed)
            } else {
                nanoseconds[count % RequestTimings.window] = elapsed
            }
            count += 1
        }
    }

    private(set) var methods: [String: Ring] = [:]

    /// No requests yet.
    public init() {}

    /// A monotonic clock reading in nanoseconds.
    public static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Records that a `method` request read at `received` (a `now()` reading) was answered just now.
    public mutating func record(_ method: String, receivedAt received: UInt64) {
        let now = Self.now()
        methods[method, default: Ring()].record(now >= received ? now - received : 0)
    }

    /// The figures for every method seen so far.
    public var report: StatsResult {
        var result = StatsResult(window: Self.window, methods: [:])
        for (method, ring) in methods {
            let sorted = ring.nanoseconds.sorted()
            func percentile(_ fraction: Double) -> Double {
                let index = min(sorted.count - 1, Int((fraction * Double(sorted.count - 1)).rounded()))
                return milliseconds(sorted[index])
            }
            result.methods[method] = StatsResult.Method(
                count: ring.count, sampled: sorted.count, p50Ms: percentile(0.5), p90Ms: percentile(0.9),
                p99Ms: percentile(0.99), maxMs: milliseconds(sorted.last ?? 0))
        }
        return result
    }

    /// Nanoseconds as milliseconds, to the microsecond.
    private func milliseconds(_ nanoseconds: UInt64) -> Double { (Double(nanoseconds / 1_000)) / 1_000 }
}

/// The `snippets/stats` result: per-method request counts and server-side time percentiles.
public struct StatsResult: Codable, Sendable, Equatable {
    /// One method's figures, over its most recent `sampled` requests.
    public struct Method: Codable, Sendable, Equatable {
        /// Requests answered since the server started.
        public var count: Int
        /// How many of the most recent ones the percentiles cover (at most `window`).
        public var sampled: Int
        /// Median time from reading the request to writing its reply, in milliseconds.
        public var p50Ms: Double
        /// 90th percentile, in milliseconds.
        public var p90Ms: Double
        /// 99th percentile, in milliseconds.
        public var p99Ms: Double
        /// The longest, in milliseconds.
        public var maxMs: Double
    }

    /// The most requests per method the percentiles are taken over.
    public var window: Int
    /// Figures by method name (`textDocument/completion`, …); methods never requested are absent.
    public var methods: [String: Method]
}

/// `snippets/stats` (an LSP extension, see `protocol/snippets-stats.md`): how long the server took per request.
public enum StatsHandler: RequestHandler {
    public static let method = "snippets/stats"
    public static let needsLibrary = false

    public static func handle(_ params: IgnoredParams, context: RequestContext) async throws -> StatsResult {
        await context.requestTimings()
    }
}
