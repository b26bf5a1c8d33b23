import Foundation
import Loupe
@testable import LoupeTrace

/// Exchanges built by hand for the board and metrics tests: times in whole seconds after ``BoardFixture/origin``.
enum BoardFixture {
    /// 1,700,000,040 s: a multiple of 10 and of 60, so slots start on it.
    static let origin = Date(timeIntervalSince1970: 1_700_000_040)

    static func at(_ seconds: Double) -> Date { origin.addingTimeInterval(seconds) }

    static func exchange(_ sequence: Int64, operation: String = "get-a", host: String = "a.test", at start: Double,
                         duration: Double?, outcome: ExchangeOutcome = .success, attempts: [TraceAttempt] = [],
                         events: [TraceEvent] = []) -> TraceExchange {
        TraceExchange(
            id: UUID(), sequence: sequence, operation: operation, method: "GET", url: "https://\(host)/x",
            startedAt: at(start), endedAt: duration.map { at(start + $0) }, outcome: outcome,
            attempts: attempts.isEmpty ? [TraceAttempt(number: 1, startedAt: at(start))] : attempts, events: events)
    }

    static func attempt(_ number: Int, at start: Double, duration: Double = 0.01, status: Int?, key: String = "a.test",
                        state: String = "closed") -> TraceAttempt {
        TraceAttempt(number: number, startedAt: at(start), endedAt: at(start + duration), status: status,
                     error: status == nil ? "connection refused" : nil, circuitState: state, notes: ["circuit.key": key])
    }

    static func transition(_ from: String, _ to: String, at time: Double, reason: String, key: String = "a.test",
                           extra: [String: String] = [:]) -> TraceEvent {
        TraceEvent(kind: .circuitTransition, at: at(time), message: "circuit \(key): \(from) → \(to)",
                   attributes: ["key": key, "from": from, "to": to, "reason": reason].merging(extra) { $1 })
    }

    static let budgetDenial = TraceEvent(kind: .retryGivenUp, at: origin, message: "budget",
                                         attributes: ["reason": "retry budget exhausted"])
}
