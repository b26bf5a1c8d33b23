import Foundation
import Synchronization

/// Hands a reader thread's batches to the caller in order, with at most `depth` read ahead of the one the caller is
/// working on: a HAR export reads its next batch from SQLite on one core while it writes the last on the other, and
/// an import parses the next entries while it inserts the last.
///
/// One reader puts, one caller takes. Only `Sendable` values cross: the caller's writer (a HAR sink, a SQLite
/// transaction) never leaves the caller's thread. When the caller stops early (its write failed), ``stop()`` makes
/// the reader's next ``put(_:)`` fail, including one already waiting for room, so the reader ends instead of waiting
/// forever.
package final class BatchReadAhead<Batch: Sendable>: Sendable {
    /// What the reader hands over: a batch, the end, or the error that stopped it (thrown again as it was).
    enum Next: Sendable {
        case batch(Batch)
        case end
        case failed(any Error)
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

    /// Runs `read` on a thread of its own, one batch ahead of the caller; `read` hands each batch to its argument,
    /// which throws once the caller has stopped. What `read` throws reaches the caller's ``forEach(_:)``.
    package static func start(depth: Int = 1, _ read: @escaping @Sendable (_ put: (Batch) throws -> Void) throws -> Void)
        -> BatchReadAhead {
        let ahead = BatchReadAhead(depth: depth)
        Thread.detachNewThread {
            do {
                try read { batch in
                    guard ahead.put(.batch(batch)) else { throw ReadAheadStopped() }
                }
                _ = ahead.put(.end)
            } catch is ReadAheadStopped {
                return
            } catch {
                _ = ahead.put(.failed(error))
            }
        }
        return ahead
    }

    /// Calls `body` with each batch, in order, until the reader ends; throws the reader's error, or `body`'s (which
    /// stops the reader).
    package func forEach(_ body: (Batch) throws -> Void) throws {
        defer { stop() }
        while true {
            switch take() {
            case .batch(let batch): try body(batch)
            case .end: return
            case .failed(let error): throw error
            }
        }
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
    package func stop() {
        state.withLock { $0.stopped = true }
        room.signal()
    }
}

/// What a reader's hand-off throws once the caller has stopped: it ends the read, and nobody sees it.
private struct ReadAheadStopped: Error {}
