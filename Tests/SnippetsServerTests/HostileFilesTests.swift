import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import SnippetsCore
import Testing

@testable import SnippetsServer

/// CPU time of the calling thread: unlike wall time it barely moves when other work shares the machine, and unlike
/// the process's it leaves out tests running beside this one.
func threadCPUNanoseconds() -> UInt64 {
    var time = timespec()
    guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return 0 }
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// The least thread CPU time `work` took over `repeats` runs (`prepare` runs before each, untimed).
func leastCPU(repeats: Int = 3, prepare: () throws -> Void = {}, _ work: () throws -> Void) rethrows -> UInt64 {
    var least = UInt64.max
    for _ in 0..<repeats {
        try prepare()
        let start = threadCPUNanoseconds()
        try work()
        least = min(least, max(threadCPUNanoseconds() - start, 1))
    }
    return least
}

@Suite(.serialized) struct HostileFilesTests {
    // MARK: The JSON reader

    /// `0.000…01` in a `$/cancelRequest`: stripping leading zeros one at a time made this quadratic (a million
    /// zeros took 6.9 s). Linear: four times the zeros cost about four times as much, quadratic sixteen.
    @Test func aLongNumberIsReadInTimeLinearInItsLength() throws {
        func message(_ zeros: Int) -> [UInt8] {
            Array(("{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":0." + String(repeating: "0", count: zeros) + "1}}").utf8)
        }
        let small = message(50_000)
        let large = message(200_000)
        #expect(try JSONValue.parse(large)["params"]?["id"] == .double(0))
        #expect(try JSONValue.parse(Array("[1\(String(repeating: "0", count: 18)).\(String(repeating: "0", count: 100_000))]".utf8)) == [.int(1_000_000_000_000_000_000)])
        let smallCost = try leastCPU { _ = try JSONValue.parse(small) }
        let largeCost = try leastCPU { _ = try JSONValue.parse(large) }
        let ratio = Double(largeCost) / Double(smallCost)
        #expect(ratio < 8, "50,000 zeros: \(smallCost / 1000) µs, 200,000: \(largeCost / 1000) µs, ratio \(ratio) (linear: about 4)")
    }
}
