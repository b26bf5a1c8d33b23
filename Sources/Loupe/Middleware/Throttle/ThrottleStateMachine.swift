import Foundation

/// Permits for concurrent requests, per client and per host, with a priority queue; a value whose methods return
/// who may run.
///
/// A queued request runs as soon as both limits allow it. Waiters are granted by ``RequestPriority`` (higher
/// first) and, within a priority, in arrival order; one whose host is at its limit is skipped (not blocking others
/// behind it), so order is FIFO per host and priority among all waiters that compete for the client-wide
/// permits. After every call no queued waiter could run.
struct ThrottleStateMachine: Sendable {
    typealias WaiterID = UInt64

    /// Which limit made a request wait.
    enum Limit: String, Sendable {
        case client, host
    }

    enum AcquireAction: Sendable, Equatable {
        /// A permit was taken: send now, and release it when done.
        case run
        /// Queued at `position` (1 = next), held back by `limit`.
        case wait(position: Int, limit: Limit)
    }

    struct Waiter: Sendable, Hashable {
        var id: WaiterID
        var host: String
        var priority: RequestPriority = .normal
    }

    let maxConcurrent: Int?
    let maxConcurrentPerHost: Int?
    private(set) var running = 0
    private(set) var runningPerHost: [String: Int] = [:]
    private(set) var queue: [Waiter] = []

    init(maxConcurrent: Int?, maxConcurrentPerHost: Int?) {
        precondition(maxConcurrent.map { $0 > 0 } ?? true, "maxConcurrent must be at least 1")
        precondition(maxConcurrentPerHost.map { $0 > 0 } ?? true, "maxConcurrentPerHost must be at least 1")
        self.maxConcurrent = maxConcurrent
        self.maxConcurrentPerHost = maxConcurrentPerHost
    }

    /// A request for `host` wants to run. Queued, it goes behind every waiter of its priority or higher.
    mutating func acquire(_ id: WaiterID, host: String, priority: RequestPriority = .normal) -> AcquireAction {
        if let limit = blockingLimit(for: host) {
            let index = queue.lastIndex { $0.priority >= priority }.map { $0 + 1 } ?? 0
            queue.insert(Waiter(id: id, host: host, priority: priority), at: index)
            return .wait(position: index + 1, limit: limit)
        }
        take(host)
        return .run
    }

    /// Takes a permit only if one is free for `host` now; never queues. The common, uncontended case.
    mutating func acquireIfFree(host: String) -> Bool {
        if let maxConcurrent, running >= maxConcurrent { return false }
        // One hash of the host on every request, not two (the check and the count).
        if let index = runningPerHost.index(forKey: host) {
            if let maxConcurrentPerHost, runningPerHost.values[index] >= maxConcurrentPerHost { return false }
            runningPerHost.values[index] += 1
        } else {
            guard maxConcurrentPerHost.map({ $0 > 0 }) ?? true else { return false }
            runningPerHost[host] = 1
        }
        running += 1
        return true
    }

    /// A running request for `host` finished: its permit goes to the waiters that can now run, in order.
    mutating func release(host: String) -> [WaiterID] {
        guard running > 0, let slot = runningPerHost.index(forKey: host), runningPerHost.values[slot] > 0 else {
            preconditionFailure("released a permit that was not taken")
        }
        running -= 1
        runningPerHost.values[slot] -= 1
        if runningPerHost.values[slot] == 0 { runningPerHost.remove(at: slot) }
        var granted: [WaiterID] = []
        var index = queue.startIndex
        while index < queue.endIndex, blockingLimit(for: nil) == nil {
            if blockingLimit(for: queue[index].host) == nil {
                take(queue[index].host)
                granted.append(queue.remove(at: index).id)
            } else {
                index += 1
            }
        }
        return granted
    }

    /// A queued request was cancelled: it leaves the queue. `false` when it was not queued (already granted).
    mutating func cancel(_ id: WaiterID) -> Bool {
        guard let index = queue.firstIndex(where: { $0.id == id }) else { return false }
        queue.remove(at: index)
        return true
    }

    /// The limit that stops a request for `host` from running now (`nil` host: the client-wide one only).
    private func blockingLimit(for host: String?) -> Limit? {
        if let maxConcurrent, running >= maxConcurrent { return .client }
        if let host, let maxConcurrentPerHost, runningPerHost[host, default: 0] >= maxConcurrentPerHost { return .host }
        return nil
    }

    private mutating func take(_ host: String) {
        running += 1
        runningPerHost[host, default: 0] += 1
    }
}
