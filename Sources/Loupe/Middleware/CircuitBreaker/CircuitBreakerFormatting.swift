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

    /// `60.0 s`, `1.50 s` or `250 ms`: ``Quantity/duration(_:)-(Duration)``, the one text of a duration.
    static func format(_ duration: Duration) -> String {
        Quantity.duration(duration)
    }
}
