import Foundation
import Synchronization

/// A clock that moves only when a test says so, like swift-clocks' `TestClock`: inject it wherever Loupe takes
/// `any Clock<Duration>` and call ``advance(by:)``; no test ever sleeps.
public final class ManualClock: Clock, Sendable {
    /// A point on the manual timeline, as an offset from the clock's start.
    public struct Instant: InstantProtocol, Hashable, Sendable {
        public var offset: Duration
        public init(offset: Duration) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var sleepLog: [Duration] = []
        var countWaiters: [(Int, CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping on this clock right now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Every duration anyone asked to sleep, in order: lets tests assert on the delays a policy chose.
    public var requestedSleeps: [Duration] { state.withLock { $0.sleepLog } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Decision { case resume, cancel, wait }
                let (decision, waiters) = state.withLock { state -> (Decision, [CheckedContinuation<Void, Never>]) in
                    state.sleepLog.append(state.now.duration(to: deadline))
                    if deadline <= state.now { return (.resume, []) }
                    // Decided under the lock: the cancellation handler either ran before (the flag is set) or
                    // will find the sleeper below, never both.
                    if Task.isCancelled { return (.cancel, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (.wait, Self.takeSatisfiedWaiters(&state))
                }
                waiters.forEach { $0.resume() }
                switch decision {
                case .resume: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                case .wait: break
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward, waking every sleeper whose deadline has come, earliest first.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        due.forEach { $0.continuation.resume() }
    }

    /// Suspends until at least `count` tasks are sleeping on this clock: how a test knows a policy is waiting.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.countWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func takeSatisfiedWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = state.sleepers.count
        let ready = state.countWaiters.filter { $0.0 <= count }.map(\.1)
        state.countWaiters.removeAll { $0.0 <= count }
        return ready
    }
}
