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
        if let stream = exchange.stream, stream.kind == .grpc {
            // grpc-swift runs interceptors once per attempt, so each attempt is an exchange of its own, numbered:
            // one past the first is a retry. A call's bytes are its messages; it has no body.
            retries = (exchange.attempts.first?.number ?? 1) > 1 ? 1 : 0
            requestBytes = stream.messages.reduce(0) { $0 &+ ($1.direction == .sent ? max(0, $1.size) : 0) }
            responseBytes = stream.messages.reduce(0) { $0 &+ ($1.direction == .received ? max(0, $1.size) : 0) }
        }
        transitions = exchange.events.count { $0.kind == .circuitTransition }
        stream = StreamFacts(exchange)
    }

    static func isBudgetDenial(_ event: TraceEvent) -> Bool {
        event.kind == .retryGivenUp && event.attributes["reason"] == budgetReason
    }
}
