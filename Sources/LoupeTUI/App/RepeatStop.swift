import Synchronization

/// The switch Esc (and quitting) turns on a running repeat: no more sends start, and the sends in flight are not
/// cancelled but left to end, so each request that went out is recorded with its answer (issue 43.3). A flag
/// rather than task cancellation, because cancelling the task group would cancel the sends in flight too.
final class RepeatStop: Sendable {
    private let stopped = Mutex(false)

    /// Whether the repeat was told to stop.
    var isStopped: Bool { stopped.withLock { $0 } }

    func stop() {
        stopped.withLock { $0 = true }
    }
}
