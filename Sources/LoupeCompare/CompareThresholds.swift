import Foundation

/// How large and how sure a change must be before it is called: a change is reported only when it is
/// significant (at ``alpha``, shared out over the groups compared) and larger than its threshold plus the noise
/// two runs of the baseline showed.
package struct CompareThresholds: Sendable, Equatable {
    /// Relative change of a latency percentile (0.10 is 10 %).
    package var latency: Double
    /// Change of the error rate in percentage points (1 is one point).
    package var errorRatePoints: Double
    /// The chance of calling a change that is not there, for the whole comparison.
    package var alpha: Double

    package static let latencyRange: ClosedRange<Double> = 0...10
    package static let errorRateRange: ClosedRange<Double> = 0...100
    package static let alphaRange: ClosedRange<Double> = 1e-9...0.5

    /// Checked once here; the command line's own types have already refused what is out of range.
    package init(latency: Double = 0.10, errorRatePoints: Double = 1, alpha: Double = 0.01) {
        precondition(Self.latencyRange.contains(latency) && Self.errorRateRange.contains(errorRatePoints)
                     && Self.alphaRange.contains(alpha), "CompareThresholds out of range")
        self.latency = latency
        self.errorRatePoints = errorRatePoints
        self.alpha = alpha
    }
}
