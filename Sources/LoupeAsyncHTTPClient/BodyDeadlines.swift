import AsyncHTTPClient
import NIOCore
import Synchronization

/// The attempts reading a response body, each with its deadline, watched by one timer for them all.
///
/// A timer per attempt, scheduled from outside the event loop, wakes the loop's selector to schedule it (an eventfd
/// write and a thread wake-up, per request). Here an attempt only joins a table under a lock; the one timer is
/// scheduled for the earliest deadline in the table, and only when a new deadline is earlier than the one it is set
/// for. Deadlines mostly come in the order they fall due (now + the same timeout), so that is rare: the timer fires
/// about once a timeout, sweeps what is due and sets itself for the next.
final class BodyDeadlines: Sendable {
    /// The one table for the process: expiring an attempt cancels its task, whichever loop the timer runs on.
    static let shared = BodyDeadlines(eventLoop: HTTPClient.defaultEventLoopGroup.next())

    private let eventLoop: any EventLoop
    private let state = Mutex(Table())

    private struct Table: ~Copyable {
        var watched: [UInt64: AttemptTimer] = [:]
        var nextID: UInt64 = 0
        /// When the timers set and not yet fired will fire (usually one). They are never cancelled: one that finds
        /// nothing due only sets the next, so a deadline earlier than all of them just adds one.
        var pending: [NIODeadline] = []

        /// Notes a timer for `deadline` unless one fires by then; true when the caller must set it.
        mutating func needsTimer(for deadline: NIODeadline) -> Bool {
            if pending.contains(where: { $0 <= deadline }) { return false }
            pending.append(deadline)
            return true
        }
    }

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Watches `timer` until ``unwatch(_:)``, calling its `expire()` once its deadline has passed.
    func watch(_ timer: AttemptTimer) -> UInt64 {
        let (id, arm) = state.withLock { table -> (UInt64, Bool) in
            let id = table.nextID
            table.nextID &+= 1
            table.watched[id] = timer
            return (id, table.needsTimer(for: timer.deadline))
        }
        if arm { schedule(at: timer.deadline) }
        return id
    }

    /// Timers set and not yet fired.
    var pendingTimers: Int { state.withLock { $0.pending.count } }

    func unwatch(_ id: UInt64) {
        _ = state.withLock { $0.watched.removeValue(forKey: id) }
    }

    private func schedule(at deadline: NIODeadline) {
        eventLoop.scheduleTask(deadline: deadline) { [self] in sweep(firing: deadline) }
    }

    /// Expires every watched attempt whose deadline has passed, and sets a timer for the next unless one is set.
    private func sweep(firing deadline: NIODeadline) {
        let now = eventLoop.now
        let (due, next) = state.withLock { table -> ([AttemptTimer], NIODeadline?) in
            if let index = table.pending.firstIndex(of: deadline) { table.pending.remove(at: index) }
            let due = table.watched.filter { $0.value.deadline <= now }
            for id in due.keys { table.watched[id] = nil }
            guard let next = table.watched.values.lazy.map(\.deadline).min() else { return (Array(due.values), nil) }
            return (Array(due.values), table.needsTimer(for: next) ? next : nil)
        }
        for timer in due { timer.expire() }
        if let next { schedule(at: next) }
    }
}
