import Foundation
import Loupe
import LoupeTrace

/// What the aggregators take from one recorded exchange, read once.
struct ExchangeFacts: Sendable {
    var operation: String
    var host: String
    var startedAt: Date
    /// Seconds, when it ended (clamped as ``TraceExchange/duration`` is).
    var duration: TimeInterval?
    var isError: Bool
    /// Attempts after the first.
    var retries: Int
    var budgetDenied: Int
    var requestBytes: Int
    var responseBytes: Int
    var transitions: Int
    /// The stream's figures, for an exchange that streamed.
    var stream: StreamFacts?

    /// The reason ``ExchangeEventKind/retryGivenUp`` carries when the retry budget refused a retry.
    static let budgetReason = "retry budget exhausted"

    init(_ exchange: TraceExchange, host: String? = nil) {
        operation = exchange.operation
        self.host = host ?? exchange.host
        startedAt = exchange.startedAt
        duration = exchange.duration
        isError = exchange.outcome != .success
        retries = max(0, exchange.attempts.count - 1)
        budgetDenied = exchange.events.count { Self.isBudgetDenial($0) }
        requestBytes = max(0, exchange.requestBody?.size ?? 0)
        responseBytes = max(0, exchange.responseBody?.size ?? 0)
        transitions = exchange.events.count { $0.kind == .circuitTransition }
        stream = StreamFacts(exchange)
    }

    static func isBudgetDenial(_ event: TraceEvent) -> Bool {
        event.kind == .retryGivenUp && event.attributes["reason"] == budgetReason
    }
}
