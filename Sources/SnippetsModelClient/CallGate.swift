import Foundation

/// One model call at a time per server: a FIFO gate that a cancelled waiter leaves without taking its turn.
/// Small local servers run one slot; queueing here keeps a second ask from timing out inside the server's queue.
actor CallGate {
    private var busy = false
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    private var nextID: UInt64 = 0
    /// The server's context window in tokens, once read from `/props` (nil: not read yet; 0: the server does not say).
    var contextTokens: Int?

    /// Waits for the gate; false when the waiting task was cancelled (the gate is then not held).
    func enter() async -> Bool {
        if !busy {
            busy = true
            return true
        }
        nextID += 1
        let id = nextID
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(returning: false)
                } else {
                    waiters.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.abandon(id) }
        }
    }

    /// Passes the gate to the next waiter, or opens it.
    func leave() {
        if waiters.isEmpty {
            busy = false
        } else {
            waiters.removeFirst().continuation.resume(returning: true)
        }
    }

    /// Records the server's context window.
    func setContextTokens(_ tokens: Int) { contextTokens = tokens }

    private func abandon(_ id: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: false)
    }
}

/// The gate of each server, by base URL, shared by every client in the process.
actor CallGates {
    static let shared = CallGates()
    private var gates: [String: CallGate] = [:]

    /// The gate for the server at `key`.
    func gate(for key: String) -> CallGate {
        if let gate = gates[key] { return gate }
        let gate = CallGate()
        gates[key] = gate
        return gate
    }
}
