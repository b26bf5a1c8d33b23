import Foundation

// Words for transition reasons: short, unit-bearing, and stable enough for tests to match.
extension CircuitBreakerStateMachine {
    /// `62%`: a rate rounded to a whole percent.
    static func percent(_ part: Int, _ whole: Int) -> String {
        whole == 0 ? "0%" : "\(Int((Double(part) * 100 / Double(whole)).rounded()))%"
    }

    /// `50` or `33.5`: a number without a needless `.0` (Double's shortest form otherwise).
    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }

    /// `60s`, `1.5s` or `250ms`.
    static func format(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        if seconds != 0, abs(seconds) < 1 { return "\(format((seconds * 1000 * 10).rounded() / 10))ms" }
        return "\(format((seconds * 1000).rounded() / 1000))s"
    }
}
