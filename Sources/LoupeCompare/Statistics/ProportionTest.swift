import Foundation

/// The two-proportion z-test (pooled): whether a rate such as errors per exchange differs between two samples.
package struct ProportionTest: Sendable, Equatable {
    package var rateA: Double
    package var rateB: Double
    /// Positive when B's rate is higher.
    package var z: Double
    package var pValue: Double

    /// `hitsA` of `countA` against `hitsB` of `countB`; nil when either count is 0.
    package init?(hitsA: Int, countA: Int, hitsB: Int, countB: Int) {
        guard countA > 0, countB > 0 else { return nil }
        let na = Double(countA), nb = Double(countB)
        rateA = Double(hitsA) / na
        rateB = Double(hitsB) / nb
        let pooled = Double(hitsA + hitsB) / (na + nb)
        let variance = pooled * (1 - pooled) * (1 / na + 1 / nb)
        guard variance > 0 else {
            z = 0
            pValue = 1
            return
        }
        z = (rateB - rateA) / variance.squareRoot()
        pValue = NormalDistribution.twoSided(z)
    }
}
