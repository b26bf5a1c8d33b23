/// When a writable store indexes the rows it wrote (``SearchIndex``, schema v13), as a value: no clock, no timer,
/// no database. The store reports what happens (rows written, a tick of its timer, the end of an indexing run,
/// closing) with the time since it opened, and carries out the action returned.
///
/// Indexing a few rows at a time costs FTS5 a new segment per table and, now and then, a merge: in the write
/// transaction of one exchange it quadrupled what recording one costs. So rows wait above the mark and are indexed
/// together: once ``maxRows`` are waiting, once the oldest has waited ``maxDelay`` (so a steady trickle is indexed
/// too), or once no row has been written for ``quiet`` (the writer is idle). Readers treat the rows above the mark
/// as candidates, so waiting never changes an answer; it only bounds how much a filter scans.
package struct SearchIndexPolicy: Sendable, Equatable {
    /// What the store does next.
    package enum Action: Sendable, Equatable {
        /// Nothing waits: no timer is needed.
        case none
        /// Index the rows above the mark now (off the request path: on the writer's thread or the timer's).
        case index
        /// Rows wait: tick again at this time since the store opened (unless a write comes first).
        case tick(at: Duration)
    }

    /// Rows waiting that make an index run due at once.
    package let maxRows: Int
    /// The longest the oldest waiting row waits while writes go on.
    package let maxDelay: Duration
    /// How long without a write makes the writer idle, and a run due.
    package let quiet: Duration

    /// Rows written (or found above the mark) since the last run caught up; more than are really waiting when
    /// another writer indexed them first, which costs one run that finds nothing.
    private(set) var waiting = 0
    /// When the oldest of them was written.
    private var oldest: Duration?
    /// When the last row was written.
    private var lastWrite: Duration?

    /// The recorder's defaults: a few hundred rows, a few seconds.
    package init(maxRows: Int = 500, maxDelay: Duration = .seconds(5), quiet: Duration = .seconds(1)) {
        self.maxRows = max(1, maxRows)
        self.maxDelay = max(.zero, maxDelay)
        self.quiet = max(.zero, quiet)
    }

    /// A policy that indexes only when asked or when the store closes (tests that need rows above the mark).
    package static let onClose = SearchIndexPolicy(maxRows: .max, maxDelay: .seconds(Int64.max / 4), quiet: .seconds(Int64.max / 4))

    /// `count` rows were committed (by this store, or found above the mark when it opened) at `now`.
    package mutating func rowsWritten(_ count: Int, at now: Duration) -> Action {
        guard count > 0 else { return decide(at: now) }
        waiting = waiting > Int.max - count ? Int.max : waiting + count
        oldest = oldest ?? now
        lastWrite = now
        return decide(at: now)
    }

    /// The store's timer fired at `now`.
    package mutating func tick(at now: Duration) -> Action {
        decide(at: now)
    }

    /// An index run reached the newest row (inside its transaction, so a row committed after it is reported after
    /// it): nothing waits.
    package mutating func caughtUp() {
        waiting = 0
        oldest = nil
        lastWrite = nil
    }

    /// The store is closing: index whatever waits.
    package func closing() -> Action {
        waiting > 0 ? .index : .none
    }

    private func decide(at now: Duration) -> Action {
        guard waiting > 0, let oldest, let lastWrite else { return .none }
        if waiting >= maxRows || now - oldest >= maxDelay || now - lastWrite >= quiet { return .index }
        // Whichever comes first: the oldest row's deadline, or the writer turning idle.
        return .tick(at: min(Self.adding(oldest, maxDelay), Self.adding(lastWrite, quiet)))
    }

    /// `time + delay`, saturating rather than trapping (``onClose``'s delays are far beyond any clock).
    private static func adding(_ time: Duration, _ delay: Duration) -> Duration {
        let limit = Duration.seconds(Int64.max / 2)
        return delay >= limit - time ? limit : time + delay
    }
}
