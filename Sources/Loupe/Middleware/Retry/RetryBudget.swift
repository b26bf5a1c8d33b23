import Foundation
import Synchronization

/// A retry allowance shared by every request of a client, so that an outage cannot multiply its traffic.
///
/// Give the same instance to the ``RetryMiddleware`` of one client. It holds a `RetryBudgetState` behind a
/// mutex; time comes from the injected clock, which should be the client's (a `ManualClock` in tests).
public final class RetryBudget: Sendable {
    private let state: Mutex<RetryBudgetState>
    private let elapsed: @Sendable () -> Duration

    /// A budget allowing retries up to `ratio` of the requests in the last `window`, and at least `minimumRetries`.
    public init(
        ratio: Double = 0.2, minimumRetries: Int = 3, window: Duration = .seconds(10),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.state = Mutex(RetryBudgetState(ratio: ratio, minimumRetries: minimumRetries, window: window))
        self.elapsed = Stopwatch.start(clock)
    }

    /// Counts a new logical request.
    package func requestStarted() {
        let now = elapsed()
        state.withLock { $0.requestStarted(at: now) }
    }

    /// Asks for one retry; the retry is counted when allowed.
    package func retryRequested() -> RetryBudgetState.Action {
        let now = elapsed()
        return state.withLock { $0.retryRequested(at: now) }
    }

    /// Requests and retries in the current window.
    public var totals: (requests: Int, retries: Int) {
        let now = elapsed()
        return state.withLock { $0.totals(at: now) }
    }
}
