import Foundation

/// The Mann–Whitney U test of two samples given as counted values (histogram buckets, lowest first), with the
/// normal approximation corrected for ties and for continuity: whether one side's durations tend to be larger.
///
/// Buckets make it exact over what the histograms hold, in time proportional to the number of buckets, not of
/// durations: equal bucket values are ties, ranked by their mean rank.
package struct RankTest: Sendable, Equatable {
    /// U of the second sample: the pairs (a, b) with b > a, ties counting a half.
    package var u: Double
    /// U divided by the number of pairs: P(B > A) + ½ P(B = A); ½ when neither side tends higher.
    package var superiority: Double
    /// The standardised statistic; positive when the second sample tends higher.
    package var z: Double
    /// Two-sided.
    package var pValue: Double

    /// Samples smaller than this are not tested (the approximation is poor): the result says "no difference".
    package static let minimumSample = 8

    /// Compares `a` with `b` (each ascending by value, counts positive); nil when either side is too small.
    package init?(_ a: [(value: Double, count: Int)], _ b: [(value: Double, count: Int)]) {
        let na = Double(a.reduce(0) { $0 + $1.count }), nb = Double(b.reduce(0) { $0 + $1.count })
        guard na >= Double(Self.minimumSample), nb >= Double(Self.minimumSample) else { return nil }
        var i = 0, j = 0
        var before = 0.0, rankSumB = 0.0, ties = 0.0
        while i < a.count || j < b.count {
            let value = min(i < a.count ? a[i].value : .infinity, j < b.count ? b[j].value : .infinity)
            var countA = 0.0, countB = 0.0
            while i < a.count, a[i].value == value { countA += Double(a[i].count); i += 1 }
            while j < b.count, b[j].value == value { countB += Double(b[j].count); j += 1 }
            let t = countA + countB
            // Ranks before + 1 … before + t share their mean.
            rankSumB += countB * (before + (t + 1) / 2)
            ties += t * t * t - t
            before += t
        }
        let n = na + nb
        u = rankSumB - nb * (nb + 1) / 2
        superiority = u / (na * nb)
        let mean = na * nb / 2
        let variance = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)))
        guard variance > 0 else {
            // Every value tied: no evidence either way.
            z = 0
            pValue = 1
            return
        }
        let shifted = u - mean
        let corrected = shifted > 0 ? max(0, shifted - 0.5) : min(0, shifted + 0.5)
        z = corrected / variance.squareRoot()
        pValue = NormalDistribution.twoSided(z)
    }
}
