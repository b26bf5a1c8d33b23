import Foundation
import Loupe

/// The status line after `R`: how many, which statuses, errors, latency percentiles, rate.
/// `repeated 20× GET api.example.com/items: 200 ×18, 503 ×2 · 0 errors · p50 12 ms p95 30 ms p99 31 ms · 95.2/s`,
/// or after Esc `stopped after 37 of 2,000: GET api.example.com/items: 200 ×37 · …`.
package struct RepeatSummary: Sendable {
    package var target: String
    package var results: [ExchangeReplayResult] = []
    package var errors = 0
    package var elapsed: Duration = .zero
    /// How many were asked for, when the repeat was stopped before sending them all.
    package var planned: Int?

    package init(target: String) {
        self.target = target
    }

    package var line: String {
        var statuses: [Int: Int] = [:]
        for status in results.compactMap(\.status) { statuses[status, default: 0] += 1 }
        let statusText = statuses.keys.sorted().map { "\($0) ×\(statuses[$0]!)" }.joined(separator: ", ")
        let durations = results.compactMap(\.duration).map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }.sorted()
        func percentile(_ p: Double) -> String {
            guard !durations.isEmpty else { return "—" }
            let index = min(durations.count - 1, max(0, Int((p * Double(durations.count)).rounded(.up)) - 1))
            return Quantity.duration(durations[index])
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? String(format: "%.1f/s", Double(results.count + errors) / seconds) : "—"
        let count = results.count + errors
        let head = planned.map { "stopped after \(Quantity.count(count)) of \(Quantity.count($0)) · \(target)" }
            ?? "repeated \(count)× \(target)"
        return "\(head): \(statusText.isEmpty ? "no response" : statusText) · \(errors) error\(errors == 1 ? "" : "s")"
            + " · p50 \(percentile(0.50)) p95 \(percentile(0.95)) p99 \(percentile(0.99)) · \(rate)"
    }
}
