import Foundation

/// Counts of calls, failures and slow calls in a window.
struct CircuitWindowTotals: Sendable, Hashable {
    var calls = 0
    var failures = 0
    var slow = 0

    mutating func add(failed: Bool, slow isSlow: Bool, sign: Int = 1) {
        calls += sign
        if failed { failures += sign }
        if isSlow { slow += sign }
    }

    mutating func add(bucket other: CircuitWindowTotals, sign: Int) {
        calls += sign * other.calls
        failures += sign * other.failures
        slow += sign * other.slow
    }
}

/// The closed state's measurements: a ring of the last N outcomes, or N one-second buckets.
///
/// Both keep running totals so recording is O(1); the time window scans its N buckets to evict old ones only
/// when the second changes.
struct CircuitBreakerWindow: Sendable, Hashable {
    private struct Call: Sendable, Hashable {
        var failed: Bool
        var slow: Bool
    }

    private struct Bucket: Sendable, Hashable {
        var second: Int64
        var totals = CircuitWindowTotals()
    }

    private let kind: CircuitBreakerConfiguration.SlidingWindow
    // Separate stored arrays rather than an enum payload, so mutation happens in place instead of copying.
    private var ring: [Call] = []
    private var next = 0
    private var buckets: [Bucket] = []
    private var lastSecond = Int64.min
    private(set) var totals = CircuitWindowTotals()

    init(_ kind: CircuitBreakerConfiguration.SlidingWindow) {
        self.kind = kind
        switch kind {
        case .count(let size):
            precondition(size > 0, "a count-based window needs at least one call")
            ring.reserveCapacity(size)
        case .time(let seconds):
            precondition(seconds > 0, "a time-based window needs at least one second")
            buckets = Array(repeating: Bucket(second: .min), count: seconds)
        }
    }

    /// Adds one call made at `now` and returns the totals of the window that ends at `now`.
    mutating func record(failed: Bool, slow: Bool, now: Duration) -> CircuitWindowTotals {
        switch kind {
        case .count(let size):
            let call = Call(failed: failed, slow: slow)
            if ring.count < size {
                ring.append(call)
            } else {
                totals.add(failed: ring[next].failed, slow: ring[next].slow, sign: -1)
                ring[next] = call
            }
            next = (next + 1) % size
        case .time(let seconds):
            let second = Self.second(of: now)
            if second != lastSecond {
                // Evict every bucket that has slid out of (second - seconds, second]: gaps in traffic leave several.
                // Within one second nothing new can expire, so the scan runs once per second at most.
                for index in buckets.indices where buckets[index].second <= second - Int64(seconds) {
                    totals.add(bucket: buckets[index].totals, sign: -1)
                    buckets[index] = Bucket(second: .min)
                }
                lastSecond = second
            }
            let index = Int(((second % Int64(seconds)) + Int64(seconds)) % Int64(seconds))
            if buckets[index].second != second { buckets[index] = Bucket(second: second) }
            buckets[index].totals.add(failed: failed, slow: slow)
        }
        totals.add(failed: failed, slow: slow)
        return totals
    }

    /// The whole second an instant falls in, rounding down (also for negative offsets).
    static func second(of instant: Duration) -> Int64 {
        let (seconds, attoseconds) = instant.components
        return attoseconds < 0 ? seconds - 1 : seconds
    }
}
