import Foundation

extension RetryPolicy {
    /// How the delay before a retry grows with the number of retries, before jitter.
    public enum Backoff: Sendable, Hashable {
        /// Retry at once.
        case none
        /// The same delay before every retry.
        case constant(Duration)
        /// `base × multiplierⁿ⁻¹` before retry n, never more than `cap`.
        case exponential(base: Duration = .milliseconds(100), multiplier: Double = 2, cap: Duration = .seconds(10))

        /// The delay before retry number `retry` (1 for the first retry).
        public func delay(forRetry retry: Int) -> Duration {
            switch self {
            case .none:
                return .zero
            case .constant(let delay):
                return delay
            case .exponential(let base, let multiplier, let cap):
                // Computed in seconds and capped before converting back, so a large exponent cannot overflow.
                let grown = RetryMath.seconds(base) * pow(multiplier, Double(max(retry - 1, 0)))
                return RetryMath.duration(seconds: min(grown, RetryMath.seconds(cap)))
            }
        }

        /// The smallest delay (decorrelated jitter's lower bound).
        var base: Duration {
            switch self {
            case .none: return .zero
            case .constant(let delay): return delay
            case .exponential(let base, _, _): return base
            }
        }

        /// The largest delay.
        var cap: Duration {
            switch self {
            case .none: return .zero
            case .constant(let delay): return delay
            case .exponential(_, _, let cap): return cap
            }
        }
    }
}
