import Foundation
import LoupeTrace

/// The figures of a replay run: how many, which statuses, which errors, latency percentiles and throughput.
package struct ReplayTally: Sendable, Equatable {
    package private(set) var count = 0
    /// Responses by status code.
    package private(set) var statuses: [Int: Int] = [:]
    /// Failures without a response, by kind (`connect failed`, `timed out`, `middleware`, `not sent`).
    package private(set) var errors: [String: Int] = [:]
    /// Each request's duration in seconds, in the order added.
    package private(set) var durations: [TimeInterval] = []

    package init() {}

    package init(_ outcomes: some Sequence<ReplayOutcome>) {
        for outcome in outcomes { add(outcome) }
    }

    package mutating func add(_ outcome: ReplayOutcome) {
        count += 1
        if let kind = outcome.errorKind {
            errors[kind, default: 0] += 1
        } else if let status = outcome.status {
            statuses[status, default: 0] += 1
        }
        durations.append(outcome.duration)
    }

    package var errorCount: Int { errors.values.reduce(0, +) }

    /// Latency at the 50th, 95th and 99th percentiles (nearest rank), in seconds; nil when nothing ran.
    package var percentiles: (p50: TimeInterval, p95: TimeInterval, p99: TimeInterval)? {
        guard !durations.isEmpty else { return nil }
        let sorted = durations.sorted()
        func rank(_ percent: Double) -> TimeInterval {
            sorted[max(0, Int((percent / 100 * Double(sorted.count)).rounded(.up)) - 1)]
        }
        return (rank(50), rank(95), rank(99))
    }

    /// Requests per second over `elapsed` seconds of wall time; nil when no time passed.
    package func requestsPerSecond(elapsed: TimeInterval) -> Double? {
        elapsed > 0 ? Double(count) / elapsed : nil
    }
}
