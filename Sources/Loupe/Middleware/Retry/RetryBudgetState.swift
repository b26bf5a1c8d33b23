import Foundation

/// The arithmetic of a ``RetryBudget``: requests and retries counted in a sliding window, pure and clock-free.
///
/// Like Envoy's retry budget, a retry is allowed while the retries in the window, this one included, stay at or
/// below `max(minimumRetries, ratio × requests)`. Under a total outage this bounds attempts to `(1 + ratio) ×`
/// requests instead of `maxAttempts ×`. Time enters as offsets from the budget's start.
package struct RetryBudgetState: Sendable, Hashable {
    /// The budget's answer to a retry request.
    package enum Action: Sendable, Hashable {
        /// Go ahead: the retry has been counted.
        case retry
        /// No retry: `retries` already made in the window, `allowance` the most the window permits.
        case exhausted(retries: Int, allowance: Int)
    }

    private struct Bucket: Hashable {
        var index: Int64
        var requests = 0
        var retries = 0
    }

    /// The largest share of requests that may be retries.
    package let ratio: Double
    /// Retries always allowed per window, so a quiet client can still retry.
    package let minimumRetries: Int
    /// How far back requests and retries count.
    package let window: Duration
    private let bucketWidth: Duration
    private var buckets: [Bucket]

    /// A budget counting in `bucketCount` slices of `window`, so old traffic leaves the window slice by slice.
    package init(ratio: Double = 0.2, minimumRetries: Int = 3, window: Duration = .seconds(10), bucketCount: Int = 10) {
        precondition(ratio >= 0 && minimumRetries >= 0 && window > .zero && bucketCount > 0, "invalid retry budget")
        self.ratio = ratio
        self.minimumRetries = minimumRetries
        self.window = window
        self.bucketWidth = window / bucketCount
        self.buckets = (0..<bucketCount).map { _ in Bucket(index: .min) }
    }

    /// Counts a new logical request (its first attempt) made at `time`.
    package mutating func requestStarted(at time: Duration) {
        update(at: time) { $0.requests += 1 }
    }

    /// Asks for one retry at `time`, counting it when allowed.
    package mutating func retryRequested(at time: Duration) -> Action {
        let (requests, retries) = totals(at: time)
        let allowance = max(minimumRetries, Int((ratio * Double(requests)).rounded(.down)))
        guard retries + 1 <= allowance else { return .exhausted(retries: retries, allowance: allowance) }
        update(at: time) { $0.retries += 1 }
        return .retry
    }

    /// Requests and retries inside the window that ends at `time`.
    package func totals(at time: Duration) -> (requests: Int, retries: Int) {
        let current = slice(time)
        return buckets.filter { $0.index > current - Int64(buckets.count) && $0.index <= current }
            .reduce(into: (0, 0)) { $0.0 += $1.requests; $0.1 += $1.retries }
    }

    private func slice(_ time: Duration) -> Int64 {
        Int64((time / bucketWidth).rounded(.down))
    }

    private mutating func update(at time: Duration, _ change: (inout Bucket) -> Void) {
        let index = slice(time)
        let position = Int(((index % Int64(buckets.count)) + Int64(buckets.count)) % Int64(buckets.count))
        if buckets[position].index != index { buckets[position] = Bucket(index: index) }
        change(&buckets[position])
    }
}
