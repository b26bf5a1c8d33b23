import Dispatch
import Synchronization

/// Hands a reader thread's batches to the caller in order, with at most `depth` read ahead of the one the caller is
/// working on: a HAR export reads its next batch from SQLite on one core while it writes the last on the other.
///
/// One reader puts, one caller takes. Only `Sendable` values cross: the caller's writer and its sink never leave the
/// caller's thread. When the caller stops early (its sink failed), ``stop()`` makes the reader's next ``put(_:)``
/// fail, including one already waiting for room, so the reader ends instead of waiting forever.
final class BatchReadAhead<Batch: Sendable>: Sendable {
    /// What the reader hands over: a batch, the end, or why it stopped.
    enum Next: Sendable {
        case batch(Batch)
        case end
        case failed(Failure)
    }

    /// A read's error, kept in its own type so it can cross threads and be thrown again as it was.
    enum Failure: Sendable {
        case store(TraceStoreError)
        case filter(TraceFilterError)

        var error: any Error {
            switch self {
            case .store(let error): error
            case .filter(let error): error
            }
        }
    }

    private struct State: ~Copyable {
        var queued: [Next] = []
        var stopped = false
    }

    private let state = Mutex(State())
    /// Signalled once for each item queued.
    private let ready = DispatchSemaphore(value: 0)
    /// Counts the free places in the queue.
    private let room: DispatchSemaphore

    /// - Parameter depth: how many batches the reader may have read that the caller has not taken (at least 1).
    init(depth: Int) {
        room = DispatchSemaphore(value: max(1, depth))
    }

    /// Queues `next`, waiting for room; false once the caller has stopped.
    func put(_ next: Next) -> Bool {
        room.wait()
        let accepted = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.queued.append(next)
            return true
        }
        if accepted { ready.signal() } else { room.signal() }  // passes the wake-up on to any later put
        return accepted
    }

    /// The next item, waiting for the reader.
    func take() -> Next {
        ready.wait()
        let next = state.withLock { $0.queued.removeFirst() }
        room.signal()
        return next
    }

    /// The caller takes nothing more: the reader's puts fail from now on.
    func stop() {
        state.withLock { $0.stopped = true }
        room.signal()
    }
}
