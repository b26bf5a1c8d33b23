import Foundation

/// A percentile of counted values with its distribution-free confidence interval: the order statistics whose ranks
/// bracket n·p by z·√(n·p·(1−p)) (the binomial's normal approximation), so no shape of distribution is assumed and
/// nothing but the histogram is kept.
package struct QuantileInterval: Sendable, Equatable {
    package var estimate: Double
    package var lower: Double
    package var upper: Double

    /// The `percent`-th percentile of `buckets` (ascending values with counts) and its interval at `confidence`
    /// (0.5…0.9999); nil when empty. The estimate is the nearest-rank value, as ``LatencyHistogram`` gives it.
    package init?(_ buckets: [(value: Double, count: Int)], percent: Double, confidence: Double) {
        let n = buckets.reduce(0) { $0 + $1.count }
        guard n > 0 else { return nil }
        let p = min(max(percent / 100, 0), 1)
        let z = NormalDistribution.quantile(0.5 + min(max(confidence, 0.5), 0.9999) / 2)
        let centre = Double(n) * p
        let spread = z * (centre * (1 - p)).squareRoot()
        let rank = max(1, Int((centre.nextDown).rounded(.up)))
        let low = max(1, Int((centre - spread).rounded(.down)))
        let high = min(n, Int((centre + spread).rounded(.up)) + 1)
        func value(atRank rank: Int) -> Double {
            var seen = 0
            for bucket in buckets {
                seen += bucket.count
                if seen >= rank { return bucket.value }
            }
            return buckets.last?.value ?? 0
        }
        estimate = value(atRank: min(rank, n))
        lower = value(atRank: low)
        upper = value(atRank: high)
    }

    /// Whether the two intervals share no value.
    package func isDisjoint(from other: QuantileInterval) -> Bool {
        upper < other.lower || other.upper < lower
    }
}
