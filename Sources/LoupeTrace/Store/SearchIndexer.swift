import Dispatch
import GRDB
import Synchronization

/// A writable store's indexing of the rows it writes (``SearchIndex``, schema v13): it keeps the
/// ``SearchIndexPolicy`` behind a lock, tells it what happens, and carries out its actions on a queue of its own,
/// so that neither the request path nor the store's writer waits for an index run (SQLite still takes one write
/// transaction at a time: a batch written during a run commits after it).
///
/// Runs index at most ``rowLimit`` rows and about ``byteLimit`` stored bytes to a transaction. A run that fails (a
/// busy or full disk) leaves its rows above the mark, where filters scan them; the next run or the close tries
/// again. Closing indexes every waiting row; a process that ends without closing leaves them to the next writer,
/// which finds them when it opens.
final class SearchIndexer: Sendable {
    /// Rows to a transaction at most.
    static let rowLimit = 1_000
    /// Stored bytes to a transaction, about (a run takes at least one row): bodies are indexed up to
    /// ``SearchIndex/bodyCap`` each, so this bounds how long one run holds the write lock.
    static let byteLimit = 4 << 20

    private struct State {
        var policy: SearchIndexPolicy
        /// The time of the timer set, if any (a later one is not set: the earlier one asks the policy again).
        var tickAt: Duration?
        /// Whether a run is queued and not yet started.
        var runQueued = false
        var closed = false
    }

    private let pool: GatedDatabase
    private let state: Mutex<State>
    private let origin = ContinuousClock.now
    private let queue = DispatchQueue(label: "LoupeTrace.SearchIndexer", qos: .utility)

    /// Starts with the `waiting` rows already above the mark (another writer's, left when it ended).
    init(pool: GatedDatabase, policy: SearchIndexPolicy, waiting: Int) {
        self.pool = pool
        self.state = Mutex(State(policy: policy))
        if waiting > 0 { rowsWritten(waiting) }
    }

    private var elapsed: Duration { origin.duration(to: .now) }

    /// The store committed `count` rows.
    func rowsWritten(_ count: Int) {
        let now = elapsed
        act(state.withLock { $0.closed ? .none : $0.policy.rowsWritten(count, at: now) })
    }

    /// Indexes every row above the mark now, on the caller's thread; then nothing more is started. Errors are
    /// ignored as a run's are.
    func close() {
        state.withLock { $0.closed = true }
        try? indexAll()
    }

    /// Indexes every row above the mark, on the caller's thread, a batch to a transaction; returns how many.
    @discardableResult
    func indexAll() throws -> Int {
        var total = 0
        while true {
            let run = try pool.write { db in
                let run = try SearchIndex.indexNewer(in: db, rowLimit: Self.rowLimit, byteLimit: Self.byteLimit)
                // Inside the transaction: a row committed after it is reported to the policy after this.
                if run.caughtUp { state.withLock { $0.policy.caughtUp() } }
                return run
            }
            total += run.rows
            if run.caughtUp { return total }
        }
    }

    /// Returns once the runs queued so far have ended (tests: a run is queued before the write that made it due
    /// returns).
    func waitForQueuedRuns() {
        queue.sync {}
    }

    private func act(_ action: SearchIndexPolicy.Action) {
        switch action {
        case .none:
            return
        case .index:
            let queued = state.withLock { state in
                defer { state.runQueued = true }
                return state.runQueued || state.closed
            }
            guard !queued else { return }
            queue.async { [weak self] in
                guard let self else { return }
                state.withLock { $0.runQueued = false }
                _ = try? indexAll()
            }
        case .tick(let time):
            let delay = time - elapsed
            // A policy that waits for the close sets no timer.
            guard delay < .seconds(3_600) else { return }
            let set = state.withLock { state in
                if let set = state.tickAt, set <= time { return false }
                state.tickAt = time
                return true
            }
            guard set else { return }
            let nanoseconds = max(0, delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000)
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [weak self] in
                self?.tick(time)
            }
        }
    }

    private func tick(_ time: Duration) {
        let now = elapsed
        act(state.withLock { state in
            if state.tickAt == time { state.tickAt = nil }
            return state.closed ? .none : state.policy.tick(at: now)
        })
    }
}
