import Foundation

extension RetryPolicy {
    /// How a backoff delay is randomised, as defined in the AWS Architecture Blog's "Exponential Backoff and Jitter".
    ///
    /// With `d` the backoff delay for this retry: `full` waits `random(0…d)`, `equal` waits `d/2 + random(0…d/2)`,
    /// and `decorrelated` waits `min(cap, random(base…previous × 3))`, starting from `previous = base`.
    public enum Jitter: String, Sendable, Hashable, CaseIterable {
        /// Exactly the backoff delay.
        case none
        /// Anywhere between zero and the backoff delay: the fewest collisions, the least total work.
        case full
        /// At least half the backoff delay: never retries almost at once.
        case equal
        /// Grows from the previous delay instead of the retry count, capped by the backoff's cap.
        case decorrelated

        /// The delay before retry number `retry`, given the previous jittered delay.
        public func apply(
            to backoff: Backoff, retry: Int, previous: Duration?, random: (ClosedRange<Double>) -> Double
        ) -> Duration {
            func draw(_ low: Double, _ high: Double) -> Double {
                // Clamped so a badly written random source cannot push the delay outside the formula's range.
                min(max(random(low...max(low, high)), low), max(low, high))
            }
            let delay = RetryMath.seconds(backoff.delay(forRetry: retry))
            switch self {
            case .none:
                return RetryMath.duration(seconds: delay)
            case .full:
                return RetryMath.duration(seconds: draw(0, delay))
            case .equal:
                return RetryMath.duration(seconds: delay / 2 + draw(0, delay / 2))
            case .decorrelated:
                let base = RetryMath.seconds(backoff.base)
                let last = previous.map(RetryMath.seconds) ?? base
                return RetryMath.duration(seconds: min(RetryMath.seconds(backoff.cap), draw(base, last * 3)))
            }
        }
    }
}
