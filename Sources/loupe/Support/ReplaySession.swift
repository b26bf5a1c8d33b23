import Foundation
import HTTPTypes
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeReplay

/// What `loupe replay` will do once its arguments are checked: which exchanges, how often, how fast, where to.
struct ReplayPlan: Sendable {
    /// One request of the run: which original, and whether it only teaches noise.
    struct Job: Sendable, Equatable {
        var original: Int
        var isNoiseRun: Bool
    }

    /// At most this many requests in one run.
    static let maximumRequests = 1_000_000

    var originals: [TraceExchange]
    var times = 1
    var noiseRuns = 0
    var concurrency = 1
    var rate: Double?
    var baseURL: URL?
    var headers: HTTPFields = [:]
    /// Values for redacted query items, by name, from `LOUPE_REPLAY_QUERY_<NAME>` (``ReplayCredentials``).
    var queryValues: [String: String] = [:]
    var timeout: Duration?
    var diff = false
    var ignore: [DiffPattern] = []
    /// A recorded WebSocket's client messages at their recorded offsets, or at once (`--fast`).
    var pacing: StreamPacing = .recorded

    /// Each original `times` times, then its noise runs, original by original.
    var jobs: [Job] {
        originals.indices.flatMap { index in
            Array(repeating: Job(original: index, isNoiseRun: false), count: times)
                + Array(repeating: Job(original: index, isNoiseRun: true), count: noiseRuns)
        }
    }

    var requestCount: Int { originals.count * (times + noiseRuns) }
}

/// What a run did: every request's outcome (in job order), the wall time, and the comparisons (with `--diff`).
struct ReplayResult: Sendable {
    var outcomes: [ReplayOutcome]
    var elapsed: TimeInterval
    var comparisons: [ReplayComparison.Result]?
    /// Stopped early (Ctrl-C): fewer outcomes than planned requests.
    var interrupted = false
}

/// Carries out a ``ReplayPlan`` through a client whose observer records into `store`.
enum ReplaySession {
    /// Cancelling the calling task stops the run: no new requests, those in flight cancelled; what was sent is
    /// still recorded and compared. `showProgress` draws the progress line on stderr.
    static func run(_ plan: ReplayPlan, client: Client, recorder: NetworkTraceInspector, store: any TraceStore,
                    webSocketTransport: (any WebSocketTransport)? = nil, showProgress: Bool = false) async -> ReplayResult {
        var progress = showProgress ? ReplayProgress(total: plan.requestCount) : nil
        let replayer = TraceReplayer(client: client, webSocketTransport: webSocketTransport, pacing: plan.pacing,
                                     queryValues: plan.queryValues)
        let jobs = plan.jobs
        let clock = ContinuousClock()
        let scheduler = ReplayScheduler(concurrency: plan.concurrency, rate: plan.rate, clock: clock)
        let start = clock.now
        progress?.draw()
        let finished = await scheduler.run(count: jobs.count, { index in
            let job = jobs[index]
            return await replayer.outcome(
                of: plan.originals[job.original], baseURL: plan.baseURL, headers: plan.headers, timeout: plan.timeout,
                isNoiseRun: job.isNoiseRun, clock: clock)
        }, progress: { _, outcome in
            progress?.add(outcome)
            progress?.draw()
        })
        let elapsed = start.duration(to: clock.now)
        progress?.clear()
        let outcomes = finished.map(\.output)
        await recorder.flush()
        var result = ReplayResult(
            outcomes: outcomes,
            elapsed: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            interrupted: outcomes.count < jobs.count)
        if plan.diff {
            let originals = Dictionary(plan.originals.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            result.comparisons = ReplayComparison.compare(
                originals: originals, outcomes: outcomes, ignore: plan.ignore, lookup: { try store.exchange(id: $0) })
        }
        return result
    }
}
