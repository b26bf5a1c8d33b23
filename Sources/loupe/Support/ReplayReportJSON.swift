import Foundation
import LoupeTrace
import LoupeReplay

/// `loupe replay --json`: the summary, then one entry per request sent (noise runs included), in the order the
/// requests were planned. Keys without a value are left out, as in the CLI's other JSON.
struct ReplayReportJSON: Encodable {
    struct Latency: Encodable {
        var p50: Double?
        var p95: Double?
        var p99: Double?
    }

    struct Change: Encodable {
        /// `status`, `header:NAME`, `body` or a JSON path.
        var path: String
        /// `changed`, `added`, `removed`, `lines` (a text body) or `bytes` (a binary body).
        var change: String
        /// The values as shown (JSON values as compact JSON; for `bytes`, sizes).
        var from: String?
        var to: String?
        /// For `lines`: the unified hunks.
        var lines: [String]?
        /// The line the text report prints.
        var text: String

        init(_ difference: Difference) {
            path = difference.location.description
            text = difference.description
            switch difference.change {
            case .changed(let old, let new): (change, from, to) = ("changed", old, new)
            case .added(let value): (change, to) = ("added", value)
            case .removed(let value): (change, from) = ("removed", value)
            case .lines: (change, lines) = ("lines", difference.detailLines)
            case .bytes(let old, let new): (change, from, to) = ("bytes", String(old), String(new))
            }
        }
    }

    struct Replay: Encodable {
        var original: String
        var originalSequence: Int64?
        var method: String
        var url: String
        var replay: String?
        var replaySequence: Int64?
        var noiseRun: Bool
        var status: Int?
        var errorKind: String?
        var error: String?
        var durationMs: Double?
        var failed: Bool
        // With --diff, for replays (not noise runs):
        var same: Bool?
        var differences: [Change]?
        var noise: [Change]?
        var ignored: Int?
        var notes: [String]?
        var problem: String?
    }

    var requests: Int
    var originals: Int
    var times: Int
    var noiseRuns: Int
    var concurrency: Int
    var rate: Double?
    var elapsedSeconds: Double
    var requestsPerSecond: Double?
    var statuses: [String: Int]
    var errors: [String: Int]
    var latencyMs: Latency
    var failed: Int
    /// Stopped early by Ctrl-C.
    var interrupted: Bool
    /// With --diff: replays that differ from their original or could not be compared.
    var differing: Int?
    var replays: [Replay]

    init(_ report: ReplayReport) {
        let plan = report.plan
        requests = report.tally.count
        originals = plan.originals.count
        times = plan.times
        noiseRuns = plan.noiseRuns
        concurrency = plan.concurrency
        rate = plan.rate
        elapsedSeconds = (report.result.elapsed * 1_000_000).rounded() / 1_000_000
        requestsPerSecond = report.requestsPerSecond.map { ($0 * 10).rounded() / 10 }
        statuses = Dictionary(uniqueKeysWithValues: report.tally.statuses.map { (String($0.key), $0.value) })
        errors = report.tally.errors
        let percentiles = report.tally.percentiles
        latencyMs = Latency(p50: Formatting.jsonMilliseconds(percentiles?.p50), p95: Formatting.jsonMilliseconds(percentiles?.p95),
                            p99: Formatting.jsonMilliseconds(percentiles?.p99))
        failed = report.failedCount
        interrupted = report.result.interrupted
        differing = plan.diff ? report.differingCount : nil
        let originalsByID = Dictionary(plan.originals.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var comparisons = (report.result.comparisons ?? [])[...]
        replays = report.result.outcomes.map { outcome in
            let original = originalsByID[outcome.originalID]
            var entry = Replay(
                original: outcome.originalID.uuidString, originalSequence: original?.sequence, method: original?.method ?? "",
                url: original?.url ?? "", replay: outcome.replayID?.uuidString, noiseRun: outcome.isNoiseRun,
                status: outcome.status, errorKind: outcome.errorKind, error: outcome.error,
                durationMs: Formatting.jsonMilliseconds(outcome.duration), failed: report.isFailure(outcome))
            // Comparisons follow the replays' order, noise runs left out.
            if !outcome.isNoiseRun, let comparison = comparisons.first, comparison.outcome == outcome {
                comparisons.removeFirst()
                entry.replaySequence = comparison.replaySequence
                entry.problem = comparison.problem
                if let diff = comparison.diff {
                    entry.same = diff.isSame
                    entry.differences = diff.differences.map(Change.init)
                    entry.noise = diff.noise.map(Change.init)
                    entry.ignored = diff.ignored.count
                    entry.notes = diff.notes
                } else {
                    entry.same = false
                }
            }
            return entry
        }
    }
}
