import Foundation
import LoupeQuery
import LoupeTrace
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Counts the exchanges windows' ranks (``ExchangeRankRequest``) off the loop's thread, one at a time, so that keys are
/// answered while a `COUNT` over a million rows runs. A request no window waits for any more by the
/// time its turn comes (a burst of `o` presses, a move to the top) is skipped: the app says which are still wanted
/// after every action.
///
/// The counts run on a thread of their own at a lower priority (nice 10 on Linux), so on a busy machine the frame
/// that keys draw goes first. Answers go back through the app's ``ActionInbox``, never by touching the app.
final class RankCounter: Sendable {
    private let shared = Shared()

    init() {
        let shared = shared
        let thread = Thread { shared.work() }
        thread.name = "loupe.rank-counter"
        thread.start()
    }

    deinit {
        shared.stop()
    }

    /// Whether a count is queued or running.
    var isBusy: Bool { shared.state.withLock { $0.outstanding > 0 } }

    /// The requests the windows still wait for; queued ones outside it are skipped.
    func keepOnly(_ wanted: Set<ExchangeRankRequest>) {
        shared.state.withLock { $0.wanted = wanted }
    }

    /// Queues a count of `request` on `store`, posting ``TUIAction/rankCounted(_:)`` (or the failure) to `inbox`.
    func count(_ request: ExchangeRankRequest, store: any TraceStore, inbox: ActionInbox) {
        shared.state.withLock {
            $0.wanted.insert(request)
            $0.queue.append(Job(request: request, store: store, inbox: inbox))
            $0.outstanding += 1
        }
        shared.signal.signal()
    }

    /// Returns once every count queued so far has been answered (for tests).
    func idle() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let now = shared.state.withLock { state in
                if state.outstanding == 0 { return true }
                state.waiters.append(done)
                return false
            }
            if now { done.resume() }
        }
    }

    private struct Job: Sendable {
        var request: ExchangeRankRequest
        var store: any TraceStore
        var inbox: ActionInbox
    }

    /// What the counting thread and the app share; the thread holds this, not the counter, so the counter's
    /// `deinit` can stop it.
    private final class Shared: Sendable {
        struct State {
            var wanted: Set<ExchangeRankRequest> = []
            var queue: [Job] = []
            var outstanding = 0
            var waiters: [CheckedContinuation<Void, Never>] = []
            var stopped = false
        }

        let state = Mutex(State())
        let signal = DispatchSemaphore(value: 0)

        func stop() {
            state.withLock { $0.stopped = true }
            signal.signal()
        }

        func work() {
            #if canImport(Glibc)
            // Below the loop's thread: a count may take a core, never the frame's time. On Linux a nice value
            // belongs to a thread, and `who` 0 is the calling one (setpriority(2), NOTES).
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            #endif
            while true {
                signal.wait()
                let next: (job: Job, wanted: Bool)? = state.withLock { state in
                    guard !state.stopped, !state.queue.isEmpty else { return nil }
                    let job = state.queue.removeFirst()
                    return (job, state.wanted.contains(job.request))
                }
                guard let next else {
                    if state.withLock({ $0.stopped }) { return }
                    continue
                }
                if next.wanted { run(next.job) }
                let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                    state.outstanding -= 1
                    guard state.outstanding == 0 else { return [] }
                    defer { state.waiters.removeAll() }
                    return state.waiters
                }
                for waiter in waiters { waiter.resume() }
            }
        }

        private func run(_ job: Job) {
            let action: TUIAction
            do {
                let rank = try job.store.exchangeRank(job.request.query, of: job.request.anchor)
                action = .rankCounted(ExchangeRankCount(request: job.request, rank: rank))
            } catch {
                action = .finished(.error("could not count the position: \(error)"), replay: false)
            }
            job.inbox.post(action, token: UUID())
        }
    }
}
