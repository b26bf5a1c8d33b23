import Foundation
import Loupe
import LoupeBoard

/// One group (an operation or a host) compared: both sides' figures, what moved, and the verdict.
package struct GroupComparison: Sendable {
    package enum Kind: String, Sendable, Codable { case operation, host }

    /// A latency percentile on both sides.
    package struct Percentile: Sendable, Equatable {
        package var percent: Double
        package var a: QuantileInterval?
        package var b: QuantileInterval?
        /// B over A, minus 1 (0.25 is 25 % slower); nil unless both exist and A's is above 0.
        package var change: Double? {
            guard let a, let b, a.estimate > 0 else { return nil }
            return b.estimate / a.estimate - 1
        }
        /// Whether the difference is significant (see ``GroupComparison/compare``).
        package var isSignificant = false
    }

    package var kind: Kind
    package var name: String
    package var a: GroupFigures?
    package var b: GroupFigures?
    package var percentiles: [Percentile] = []
    package var rankTest: RankTest?
    package var errorTest: ProportionTest?
    package var drifts: [ShapeDrift] = []
    package var verdict: Verdict = .unchanged
    /// Why, one short phrase each: `p95 +42% (120 ms → 170 ms)`, `errors +9.5pt`, `removed $.email`.
    package var reasons: [String] = []
    /// How bad, for ordering within a verdict: the largest relative change called.
    package var severity = 0.0

    package static let percents: [Double] = [50, 95, 99]
    /// Each percentile's interval is at this confidence; two disjoint ones leave far less than 1 % to chance.
    package static let confidence = 0.99

    /// Compares the group's two sides. `groups` is how many groups the comparison holds (alpha is shared out
    /// over them, Bonferroni's way); `noise`, the same group compared between two runs of the baseline, raises each
    /// threshold by what moved there and takes the shape paths that moved out of the drift.
    package static func compare(kind: Kind, name: String, a: GroupFigures?, b: GroupFigures?,
                                thresholds: CompareThresholds, groups: Int, noise: GroupComparison? = nil)
        -> GroupComparison {
        var result = GroupComparison(kind: kind, name: name, a: a, b: b)
        guard let a, let b else {
            result.verdict = a == nil ? .new : .gone
            result.reasons = [a == nil ? "only in B" : "only in A"]
            return result
        }
        let alpha = thresholds.alpha / Double(max(1, groups))
        let bucketsA = a.latency.buckets().map { (value: $0.seconds, count: $0.count) }
        let bucketsB = b.latency.buckets().map { (value: $0.seconds, count: $0.count) }
        result.rankTest = RankTest(bucketsA, bucketsB)
        var regressions: [(String, Double)] = [], improvements: [(String, Double)] = []
        for percent in percents {
            var percentile = Percentile(
                percent: percent, a: QuantileInterval(bucketsA, percent: percent, confidence: confidence),
                b: QuantileInterval(bucketsB, percent: percent, confidence: confidence))
            if let change = percentile.change, let ia = percentile.a, let ib = percentile.b {
                // The median moves with the whole distribution: the rank test, which uses every duration, is the
                // stronger test there. A tail moves alone: its own intervals must part.
                // The intervals lean on the binomial's normal approximation, which needs at least
                // ``minimumBeyond`` durations past the percentile on each side: p99 is judged from 500 on.
                let enough = [a.latency.count, b.latency.count].allSatisfy { Double($0) * (1 - percent / 100) >= Self.minimumBeyond }
                let significant = percent == 50
                    ? (result.rankTest.map { $0.pValue < alpha && ($0.z > 0) == (change > 0) } ?? false)
                    : enough && ia.isDisjoint(from: ib)
                let noiseChange = noise?.percentiles.first { $0.percent == percent }?.change.map(abs) ?? 0
                percentile.isSignificant = significant
                if significant, abs(change) > thresholds.latency + noiseChange {
                    let text = "p\(Int(percent)) \(Self.signedPercent(change)) (\(Quantity.duration(ia.estimate)) → \(Quantity.duration(ib.estimate)))"
                    if change > 0 { regressions.append((text, change)) } else { improvements.append((text, -change)) }
                }
            }
            result.percentiles.append(percentile)
        }
        result.errorTest = ProportionTest(hitsA: a.errors, countA: a.count, hitsB: b.errors, countB: b.count)
        if let test = result.errorTest, test.pValue < alpha, Self.enoughForProportions(a, b) {
            let points = (test.rateB - test.rateA) * 100
            let noisePoints = noise?.errorTest.map { abs($0.rateB - $0.rateA) * 100 } ?? 0
            if abs(points) > thresholds.errorRatePoints + noisePoints {
                let text = "errors \(points > 0 ? "+" : "")\(String(format: "%.1f", points))pt (\(Self.percentText(test.rateA)) → \(Self.percentText(test.rateB)))"
                // Points weigh as their share of 100, so 10 points rank with a 10 % slowdown.
                if points > 0 { regressions.append((text, points / 100)) } else { improvements.append((text, -points / 100)) }
            }
        }
        let noisyPaths = Set(noise?.drifts.map(\.path) ?? [])
        // A host's responses mix its operations' shapes: shape is compared per operation only.
        if kind == .operation {
            result.drifts = ShapeDrift.drifts(from: a.shape, to: b.shape, alpha: alpha).filter { !noisyPaths.contains($0.path) }
        }
        for drift in result.drifts where drift.kind.isBreaking { regressions.append((drift.description, 0)) }
        if !regressions.isEmpty {
            result.verdict = .regressed
            result.reasons = regressions.map(\.0) + improvements.map(\.0)
            result.severity = regressions.map(\.1).max() ?? 0
        } else if !improvements.isEmpty {
            result.verdict = .improved
            result.reasons = improvements.map(\.0)
            result.severity = improvements.map(\.1).max() ?? 0
        }
        result.reasons += result.drifts.filter { !$0.kind.isBreaking }.map(\.description)
        return result
    }

    /// Durations past a percentile, on each side, before its interval is trusted (the usual rule for the normal
    /// approximation of a binomial: n·p and n·(1−p) at least 5).
    package static let minimumBeyond = 5.0

    /// The same rule for the error-rate test: at least five errors and five successes expected on each side.
    static func enoughForProportions(_ a: GroupFigures, _ b: GroupFigures) -> Bool {
        let pooled = Double(a.errors + b.errors) / Double(max(1, a.count + b.count))
        return [a.count, b.count].allSatisfy { Double($0) * min(pooled, 1 - pooled) >= minimumBeyond }
    }

    static func signedPercent(_ change: Double) -> String {
        (change >= 0 ? "+" : "") + String(format: "%.0f%%", change * 100)
    }

    static func percentText(_ rate: Double) -> String { String(format: "%.1f%%", rate * 100) }
}
