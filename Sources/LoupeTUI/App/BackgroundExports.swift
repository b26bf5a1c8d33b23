import Foundation
import LoupeQuery
import LoupeTrace
import Synchronization

/// Runs the TUI's exports off the loop's thread, each on a thread of its own, so that keys are answered and
/// the list stays live while a large store is written (a million exchanges take tens of seconds). How far each got
/// and how it ended go back through the app's ``ActionInbox``, never by touching the app.
///
/// Quitting cancels them: each stops before its next exchange and removes its partial file, and the app waits for
/// that (``waitForAll()``), so no hidden temporary file outlives the TUI.
final class BackgroundExports: Sendable {
    private struct State {
        var running: [UUID: Job] = [:]
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private final class Job: Sendable {
        let cancelled = Atomic<Bool>(false)
        let ended = DispatchSemaphore(value: 0)
    }

    private let state = Mutex(State())

    /// Whether an export is running.
    var isBusy: Bool { state.withLock { !$0.running.isEmpty } }

    /// Starts `request` on `store`: ``TUIAction/progress(_:)`` every ``TUIExport/progressEvery``
    /// exchanges, then ``TUIAction/exported(_:clipboard:)``, posted to `inbox`.
    func start(_ request: ExportRequest, store: any TraceStore, inbox: ActionInbox) {
        let token = UUID()
        let job = Job()
        state.withLock { $0.running[token] = job }
        let thread = Thread { [self] in
            let outcome = TUIExport.run(
                request, store: store, isCancelled: { job.cancelled.load(ordering: .relaxed) },
                progress: { inbox.post(.progress(request.progress(written: $0)), token: token) })
            inbox.post(.exported(outcome.message, clipboard: outcome.clipboard), token: token)
            finish(token)
            job.ended.signal()
        }
        thread.name = "loupe.export"
        thread.start()
    }

    /// Asks every running export to stop, and returns at once how many were running.
    @discardableResult
    func cancelAll() -> Int {
        let jobs = state.withLock { Array($0.running.values) }
        for job in jobs { job.cancelled.store(true, ordering: .relaxed) }
        return jobs.count
    }

    /// Blocks until every export started so far has ended (cancel them first to make that quick).
    func waitForAll() {
        for job in state.withLock({ Array($0.running.values) }) {
            job.ended.wait()
            job.ended.signal()  // another waiter may be waiting on the same job
        }
    }

    /// Returns once every export started so far has ended (for tests and `settle`).
    func idle() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.running.isEmpty { return true }
                state.waiters.append(done)
                return false
            }
            if now { done.resume() }
        }
    }

    private func finish(_ token: UUID) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running[token] = nil
            guard state.running.isEmpty else { return [] }
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
