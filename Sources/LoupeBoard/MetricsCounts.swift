import Foundation
import LoupeTrace

/// The counters of a group of exchanges; sums saturate, since a store may hold any number.
public struct MetricsCounts: Sendable, Hashable {
    /// Exchanges.
    public var requests = 0
    /// Exchanges whose outcome was not success (the ones `~e` matches).
    public var errors = 0
    /// Exchanges that needed more than one attempt.
    public var retried = 0
    /// Attempts after the first.
    public var retries = 0
    /// Retries the retry budget refused (`retry-give-up` events saying so).
    public var budgetDenied = 0
    /// Exchanges retried that ended in success (Envoy's `retry_success`).
    public var retrySucceeded = 0
    /// Recorded request and response body sizes, summed.
    public var requestBytes = 0
    public var responseBytes = 0
    /// Circuit breaker transitions recorded on these exchanges.
    public var breakerTransitions = 0

    public init() {}

    mutating func add(_ facts: ExchangeFacts) {
        requests = requests &+ 1
        if facts.isError { errors += 1 }
        if facts.retries > 0 { retried += 1 }
        retries = Self.sum(retries, facts.retries)
        budgetDenied = Self.sum(budgetDenied, facts.budgetDenied)
        if facts.retries > 0, !facts.isError { retrySucceeded += 1 }
        requestBytes = Self.sum(requestBytes, facts.requestBytes)
        responseBytes = Self.sum(responseBytes, facts.responseBytes)
        breakerTransitions = Self.sum(breakerTransitions, facts.transitions)
    }

    mutating func add(_ other: MetricsCounts) {
        requests = Self.sum(requests, other.requests)
        errors = Self.sum(errors, other.errors)
        retried = Self.sum(retried, other.retried)
        retries = Self.sum(retries, other.retries)
        budgetDenied = Self.sum(budgetDenied, other.budgetDenied)
        retrySucceeded = Self.sum(retrySucceeded, other.retrySucceeded)
        requestBytes = Self.sum(requestBytes, other.requestBytes)
        responseBytes = Self.sum(responseBytes, other.responseBytes)
        breakerTransitions = Self.sum(breakerTransitions, other.breakerTransitions)
    }

    /// Errors per exchange, 0…1.
    public var errorRate: Double { requests == 0 ? 0 : Double(errors) / Double(requests) }
    /// Exchanges retried per exchange, 0…1.
    public var retryRate: Double { requests == 0 ? 0 : Double(retried) / Double(requests) }

    static func sum(_ a: Int, _ b: Int) -> Int {
        let (result, overflow) = a.addingReportingOverflow(Swift.max(0, b))
        return overflow ? .max : result
    }
}
