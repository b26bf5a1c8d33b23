import Foundation
import Synchronization

/// Carries out ``DeduplicationState``'s actions: parks joiners on continuations and hands them the leader's
/// result, or the lead when the leader is cancelled.
final class DeduplicationRegistry: Sendable {
    /// How a request's wait ended.
    enum Resolution: Sendable {
        /// Send it yourself: first for the key, or promoted after the leader was cancelled.
        case lead(promotedFrom: UUID?)
        case response(RawResponse)
        case failure(any Error)
        case cancelled
    }

    private struct Storage {
        var state = DeduplicationState<DeduplicationKey>()
        var nextWaiter: UInt64 = 0
        var continuations: [UInt64: CheckedContinuation<Resolution, Never>] = [:]
    }

    private let storage = Mutex(Storage())

    /// Distinct requests in flight now.
    var inFlightCount: Int { storage.withLock { $0.state.flights.count } }

    /// A waiter id, and whether the request already leads: the common case, nothing identical in flight, is
    /// settled with one lock and no suspension.
    func arriveIfFirst(_ key: DeduplicationKey, exchange: UUID) -> (waiter: UInt64, leads: Bool) {
        storage.withLock { storage in
            storage.nextWaiter += 1
            let waiter = storage.nextWaiter
            guard storage.state.flights[key] == nil else { return (waiter, false) }
            _ = storage.state.arrive(key, .init(waiter: waiter, exchange: exchange))
            return (waiter, true)
        }
    }

    /// Leads (when the flight ended meanwhile), or joins the identical in-flight request, calling `onJoin` with
    /// its leader's exchange, and waits for it.
    func arrive(
        _ key: DeduplicationKey, waiter: UInt64, exchange: UUID, onJoin: (UUID) -> Void
    ) async -> Resolution {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Resolution, Never>) in
                let action = storage.withLock { storage -> DeduplicationState<DeduplicationKey>.ArrivalAction? in
                    // Under the lock, like every waiter here: a cancelled task never parks.
                    if Task.isCancelled { return nil }
                    let action = storage.state.arrive(key, .init(waiter: waiter, exchange: exchange))
                    if case .join = action { storage.continuations[waiter] = continuation }
                    return action
                }
                switch action {
                case nil: continuation.resume(returning: .cancelled)
                case .lead: continuation.resume(returning: .lead(promotedFrom: nil))
                case .join(let leader): onJoin(leader)
                }
            }
        } onCancel: {
            let continuation = storage.withLock { storage in
                storage.state.leave(key, waiter: waiter) ? storage.continuations.removeValue(forKey: waiter) : nil
            }
            continuation?.resume(returning: .cancelled)
        }
    }

    /// The leader's result, shared with every joiner.
    func finish(_ key: DeduplicationKey, leader: UInt64, with result: Result<RawResponse, any Error>) {
        let joiners = storage.withLock { storage in
            storage.state.finish(key, leader: leader).compactMap { storage.continuations.removeValue(forKey: $0) }
        }
        for joiner in joiners {
            switch result {
            case .success(let response): joiner.resume(returning: .response(response))
            case .failure(let error): joiner.resume(returning: .failure(error))
            }
        }
    }

    /// The leader was cancelled: the first joiner, if any, is woken to send instead.
    func leaderCancelled(_ key: DeduplicationKey, leader: UInt64, exchange: UUID) {
        let promoted = storage.withLock { storage in
            storage.state.leaderCancelled(key, leader: leader).flatMap { storage.continuations.removeValue(forKey: $0.waiter) }
        }
        promoted?.resume(returning: .lead(promotedFrom: exchange))
    }
}
