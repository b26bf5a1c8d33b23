import Foundation
import Synchronization

/// Carries out ``ThrottleStateMachine``'s actions: parks queued requests on continuations and wakes the ones a
/// released permit lets run.
final class ThrottleLimiter: Sendable {
    /// How a request got (or did not get) its permit.
    enum Acquisition: Sendable, Equatable {
        case immediate
        case waited(position: Int, limit: ThrottleStateMachine.Limit)
        /// Cancelled while queued: no permit is held.
        case cancelled
    }

    private struct Parked {
        var continuation: CheckedContinuation<Acquisition, Never>
        var position: Int
        var limit: ThrottleStateMachine.Limit
    }

    private struct Storage {
        var machine: ThrottleStateMachine
        var nextWaiter: UInt64 = 0
        var parked: [UInt64: Parked] = [:]
    }

    private let storage: Mutex<Storage>

    init(maxConcurrent: Int?, maxConcurrentPerHost: Int?) {
        storage = Mutex(Storage(machine: ThrottleStateMachine(maxConcurrent: maxConcurrent, maxConcurrentPerHost: maxConcurrentPerHost)))
    }

    var snapshot: ThrottleSnapshot {
        storage.withLock {
            ThrottleSnapshot(running: $0.machine.running, queued: $0.machine.queue.count,
                             runningPerHost: $0.machine.runningPerHost, maxConcurrent: $0.machine.maxConcurrent)
        }
    }

    /// Takes a permit for `host`, waiting in line when none is free. Unless the result is `.cancelled`, the
    /// caller holds a permit and must ``release(host:)`` it.
    /// Takes a free permit without waiting, if there is one: the common path, one lock and no suspension.
    func acquireIfFree(host: String) -> Bool {
        storage.withLock { $0.machine.acquireIfFree(host: host) }
    }

    func acquire(host: String, priority: RequestPriority = .normal) async -> Acquisition {
        let id = storage.withLock { storage -> UInt64? in
            if storage.machine.acquireIfFree(host: host) { return nil }
            storage.nextWaiter += 1
            return storage.nextWaiter
        }
        guard let id else { return .immediate }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Acquisition, Never>) in
                let immediate = storage.withLock { storage -> Acquisition? in
                    // Under the lock: a task cancelled before it queues never queues.
                    if Task.isCancelled { return .cancelled }
                    switch storage.machine.acquire(id, host: host, priority: priority) {
                    case .run: return .immediate
                    case .wait(let position, let limit):
                        storage.parked[id] = Parked(continuation: continuation, position: position, limit: limit)
                        return nil
                    }
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let parked = storage.withLock { storage in
                storage.machine.cancel(id) ? storage.parked.removeValue(forKey: id) : nil
            }
            parked?.continuation.resume(returning: .cancelled)
        }
    }

    /// Returns a permit; the next waiters that can run are woken.
    func release(host: String) {
        let granted = storage.withLock { storage in
            storage.machine.release(host: host).compactMap { storage.parked.removeValue(forKey: $0) }
        }
        for parked in granted {
            parked.continuation.resume(returning: .waited(position: parked.position, limit: parked.limit))
        }
    }
}
