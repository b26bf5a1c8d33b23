import Foundation
import Loupe
import LoupeTrace
import LoupeFormats
import LoupeReplay

/// What `loupe replay` prints when the run is over, and the exit status it implies.
///
/// A request failed when no response came (transport error, open breaker, not sent) or, without `--diff`, when
/// its status is 400 or more. With `--diff` the question is "does it answer as recorded?": a recorded 404 that
/// still answers 404 is fine, and a changed status is a difference.
struct ReplayReport {
    /// Failed requests listed one per line, at most.
    static let maximumFailuresShown = 10

    let plan: ReplayPlan
    let result: ReplayResult
    let tally: ReplayTally

    init(plan: ReplayPlan, result: ReplayResult) {
        self.plan = plan
        self.result = result
        tally = ReplayTally(result.outcomes)
    }

    /// Requests that failed, noise runs included.
    var failedCount: Int { result.outcomes.count(where: isFailure) }

    /// Replays that differ from their original, or could not be compared.
    var differingCount: Int {
        result.comparisons?.count { $0.problem != nil || $0.diff?.isSame == false } ?? 0
    }

    /// Exit 1 when anything failed or differed, or the run was interrupted.
    var succeeded: Bool { failedCount == 0 && differingCount == 0 && !result.interrupted }

    func isFailure(_ outcome: ReplayOutcome) -> Bool {
        if outcome.errorKind != nil { return true }
        return !plan.diff && (outcome.status ?? 0) >= 400
    }

    var requestsPerSecond: Double? { tally.requestsPerSecond(elapsed: result.elapsed) }

    /// `3.0 ms`, `12 ms`, `1.20 s`: ``Quantity/duration(_:)-(Double?)``.
    static func latency(_ seconds: TimeInterval) -> String { Quantity.duration(seconds) }

    /// The summary (and with `--diff` the differences), as lines; recorded text made safe for a terminal.
    var text: [String] {
        var lines: [String] = []
        let noise = plan.noiseRuns > 0 ? ", plus \(plan.noiseRuns) noise run\(plan.noiseRuns == 1 ? "" : "s") each" : ""
        let rate = requestsPerSecond.map { String(format: "%.1f requests/s", $0) } ?? "— requests/s"
        lines.append("Replayed \(Quantity.count(tally.count, "request")) (\(Quantity.count(plan.originals.count, "exchange")) × \(plan.times)\(noise)) "
            + "in \(Quantity.duration(result.elapsed)): \(rate), concurrency \(plan.concurrency)")
        if result.interrupted { lines.append("Interrupted: \(result.outcomes.count) of \(plan.requestCount) requests sent.") }
        if let baseURL = plan.baseURL { lines.append("Sent to: " + TerminalText.line(baseURL.absoluteString) + " (--base-url)") }
        let statuses = tally.statuses.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }
        lines.append("Statuses: " + (statuses.isEmpty ? "none" : statuses.joined(separator: ", ")))
        let errors = tally.errors.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }
        lines.append("Errors: " + (errors.isEmpty ? "none" : "\(tally.errorCount) (\(errors.joined(separator: ", ")))"))
        if let percentiles = tally.percentiles {
            lines.append("Latency: p50 \(Self.latency(percentiles.p50)), p95 \(Self.latency(percentiles.p95)), p99 \(Self.latency(percentiles.p99))")
        }
        // The same failure of the same original is listed once, with its count.
        var failures: [(original: UUID, error: String, count: Int)] = []
        for outcome in result.outcomes where outcome.errorKind != nil {
            let error = outcome.error ?? outcome.errorKind ?? ""
            if let index = failures.firstIndex(where: { $0.original == outcome.originalID && $0.error == error }) {
                failures[index].count += 1
            } else {
                failures.append((outcome.originalID, error, 1))
            }
        }
        for failure in failures.prefix(Self.maximumFailuresShown) {
            let count = failure.count > 1 ? " ×\(failure.count)" : ""
            lines.append("  failed\(count): \(TerminalText.line(name(failure.original))): \(TerminalText.line(failure.error))")
        }
        if failures.count > Self.maximumFailuresShown {
            lines.append("  … and \(failures.count - Self.maximumFailuresShown) more kinds of failure (--json lists every request)")
        }
        if let comparisons = result.comparisons { lines += ReplayDiffText(plan: plan, comparisons: comparisons).lines }
        return lines
    }

    func name(_ original: UUID) -> String {
        guard let exchange = plan.originals.first(where: { $0.id == original }) else { return original.uuidString }
        return "#\(exchange.sequence ?? 0) \(exchange.method) \(exchange.url)"
    }
}
