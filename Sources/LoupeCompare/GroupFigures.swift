import Foundation
import Loupe
import LoupeBoard
import LoupeQuery

/// Everything a comparison keeps of one group (an operation or a host) on one side, fed one exchange at a time in
/// bounded memory: counts, a latency histogram, the status mix, the response shape and a few example exchanges.
package struct GroupFigures: Sendable {
    package var count = 0
    /// Every outcome but success (as `~e`).
    package var errors = 0
    /// Attempts after the first, summed.
    package var retries = 0
    /// Exchanges the circuit breaker refused (short-circuited).
    package var refusals = 0
    package var latency = LatencyHistogram()
    /// Exchanges by status; no status (a transport error, a refusal) is 0. At most ``maximumStatuses`` codes,
    /// the rest under -1.
    package var statuses: [Int: Int] = [:]
    package var responseBytes = 0
    package var responses = 0
    package var shape = ResponseShape()
    /// The first exchange, the first error and the slowest: what a person opens to see why.
    package var examples = GroupExamples()

    package static let maximumStatuses = 32

    package init() {}

    package mutating func add(_ figures: ExchangeFigures) {
        count += 1
        let isError = figures.outcome != .success
        if isError { errors += 1 }
        retries += max(0, figures.attempts - 1)
        if figures.outcome == .shortCircuited { refusals += 1 }
        if let duration = figures.duration { latency.record(duration) }
        let status = figures.status ?? 0
        if statuses[status] != nil || statuses.count < Self.maximumStatuses {
            statuses[status, default: 0] += 1
        } else {
            statuses[-1, default: 0] += 1
        }
        if let size = figures.responseSize, size >= 0 {
            responseBytes = responseBytes.addingReportingOverflow(size).overflow ? .max : responseBytes + size
            responses += 1
        }
        if let body = figures.jsonBody { shape.learn(body) }
        examples.add(figures, isError: isError)
    }

    package var errorRate: Double { count > 0 ? Double(errors) / Double(count) : 0 }
    package var retriesPerExchange: Double { count > 0 ? Double(retries) / Double(count) : 0 }
    package var refusalsPerExchange: Double { count > 0 ? Double(refusals) / Double(count) : 0 }
    package var meanResponseBytes: Double? { responses > 0 ? Double(responseBytes) / Double(responses) : nil }
}

/// Example exchanges of a group: ids only, read whole when shown.
package struct GroupExamples: Sendable, Equatable {
    package var first: UUID?
    package var firstError: UUID?
    package var slowest: UUID?
    private var slowestDuration = -1.0

    package init() {}

    mutating func add(_ figures: ExchangeFigures, isError: Bool) {
        guard let id = figures.id else { return }
        if first == nil { first = id }
        if isError, firstError == nil { firstError = id }
        if let duration = figures.duration, duration > slowestDuration {
            slowestDuration = duration
            slowest = id
        }
    }

    /// Distinct ids, in the order first, first error, slowest.
    package var ids: [UUID] {
        var seen: [UUID] = []
        for id in [first, firstError, slowest].compactMap({ $0 }) where !seen.contains(id) { seen.append(id) }
        return seen
    }
}
