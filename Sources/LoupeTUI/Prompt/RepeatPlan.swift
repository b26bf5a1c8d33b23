import Loupe

/// How `R` repeats a request: how many times and how many at once, read from `TIMES [CONCURRENCY]` with both
/// numbers range-checked here, once.
package struct RepeatPlan: Hashable, Sendable {
    package static let timesRange = 1...10_000
    package static let concurrencyRange = 1...64

    package var times: Int
    package var concurrency: Int

    package init(times: Int, concurrency: Int) {
        self.times = times
        self.concurrency = concurrency
    }

    /// Which number is which: `repeat 20 times, 4 at once`.
    package var summary: String {
        "repeat \(Quantity.count(times)) times, \(concurrency) at once"
    }

    /// `20 4` → 20 times, 4 at once; `20` → one at a time.
    package static func parse(_ text: String) -> Result<RepeatPlan, PromptProblem> {
        let words = text.split(separator: " ")
        guard (1...2).contains(words.count) else {
            return .failure(PromptProblem("expected TIMES [CONCURRENCY], like 20 4"))
        }
        guard let times = Int(words[0]), timesRange.contains(times) else {
            return .failure(PromptProblem("TIMES must be a whole number from 1 to 10,000, got '\(words[0])'"))
        }
        let concurrency = words.count == 2 ? Int(words[1]) : 1
        guard let concurrency, concurrencyRange.contains(concurrency) else {
            return .failure(PromptProblem("CONCURRENCY must be a whole number from 1 to 64, got '\(words[1])'"))
        }
        return .success(RepeatPlan(times: times, concurrency: concurrency))
    }
}
