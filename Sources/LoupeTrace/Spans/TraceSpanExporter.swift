import Foundation
import Loupe
import Tracing

/// Replays recorded exchanges as swift-distributed-tracing spans, at the instants they happened.
///
/// Each exchange becomes a client span named after its operation, from its start to its end, and each attempt a
/// child client span named after the method (as OpenTelemetry names HTTP client spans), from the attempt's start
/// to its end. Both carry OpenTelemetry's HTTP client attributes: `http.request.method`, `url.full` (the recorded,
/// redacted URL without user info), `url.scheme`, `server.address`, `server.port`, `http.response.status_code`,
/// and `error.type` (the status for 4xx/5xx, else the outcome such as `transportError` or `shortCircuited`);
/// attempts after the first add `http.request.resend_count`. Loupe's own attributes match the live
/// ``Loupe/TracingMiddleware``: `loupe.exchange_id`, `loupe.operation`, `loupe.outcome`, `loupe.attempts`,
/// `loupe.replay_of`, and per attempt `loupe.attempt`, `loupe.retry.reason`, `loupe.retry.delay_ms`,
/// `loupe.circuit.state`. Recorded events (retries, breaker transitions, waits) become span events named
/// `loupe.<kind>` on the exchange span; an attempt's request-sent and first-byte moments become events on its span.
///
/// With swift-otel bootstrapped, this sends a store's history to any OTLP collector:
///
/// ```swift
/// let exporter = TraceSpanExporter()                          // InstrumentationSystem.tracer
/// exporter.export(try store.exchanges(matching: nil, limit: 1_000))
/// ```
public struct TraceSpanExporter: Sendable {
    /// Where spans go.
    public let tracer: any Tracer

    /// An exporter reporting to `tracer` (the global one by default; inject an `InMemoryTracer` in tests).
    public init(tracer: any Tracer = InstrumentationSystem.tracer) {
        self.tracer = tracer
    }

    /// Emits the spans of each exchange, in order.
    public func export(_ exchanges: some Sequence<TraceExchange>) {
        for exchange in exchanges { export(exchange) }
    }

    /// Emits one exchange span with a child span per attempt, each a top-level trace unless `context` says
    /// otherwise.
    public func export(_ exchange: TraceExchange, context: ServiceContext = .topLevel) {
        let lastEnd = exchange.attempts.compactMap(\.endedAt).max()
        let end = exchange.endedAt ?? lastEnd ?? exchange.startedAt
        let span = tracer.startSpan(
            exchange.operation, context: context, ofKind: .client, at: RecordedInstant(exchange.startedAt))
        span.updateAttributes { attributes in
            SpanHTTPAttributes.setRequest(method: exchange.method, url: exchange.url, on: &attributes)
            if let status = exchange.status { attributes["http.response.status_code"] = status }
            if let errorType = SpanHTTPAttributes.errorType(status: exchange.status, outcome: exchange.outcome) {
                attributes["error.type"] = errorType
            }
            attributes["loupe.exchange_id"] = exchange.id.uuidString
            attributes["loupe.operation"] = exchange.operation
            attributes["loupe.outcome"] = exchange.outcome.rawValue
            attributes["loupe.attempts"] = exchange.attempts.count
            if let replayOf = exchange.replayOf { attributes["loupe.replay_of"] = replayOf.uuidString }
        }
        if exchange.outcome != .success {
            span.setStatus(SpanStatus(code: .error, message: exchange.error ?? exchange.status.map { "HTTP \($0)" }))
        }
        for event in exchange.events {
            var attributes = SpanAttributes()
            attributes["message"] = event.message
            for (key, value) in event.attributes.sorted(by: { $0.key < $1.key }) { attributes[key] = value }
            span.addEvent(SpanEvent(name: "loupe.\(event.kind)", at: RecordedInstant(event.at), attributes: attributes))
        }
        for attempt in exchange.attempts {
            exportAttempt(attempt, of: exchange, parent: span.context, fallbackEnd: end)
        }
        span.end(at: RecordedInstant(end))
    }

    private func exportAttempt(_ attempt: TraceAttempt, of exchange: TraceExchange, parent: ServiceContext,
                               fallbackEnd: Date) {
        let span = tracer.startSpan(
            exchange.method, context: parent, ofKind: .client, at: RecordedInstant(attempt.startedAt))
        span.updateAttributes { attributes in
            SpanHTTPAttributes.setRequest(method: exchange.method, url: exchange.url, on: &attributes)
            if let status = attempt.status { attributes["http.response.status_code"] = status }
            if let status = attempt.status, status >= 400 {
                attributes["error.type"] = String(status)
            } else if attempt.error != nil {
                attributes["error.type"] = ExchangeOutcome.transportError.rawValue
            }
            if attempt.number > 1 { attributes["http.request.resend_count"] = attempt.number - 1 }
            attributes["loupe.exchange_id"] = exchange.id.uuidString
            attributes["loupe.attempt"] = attempt.number
            if let reason = attempt.retryReason { attributes["loupe.retry.reason"] = reason }
            if let delay = attempt.retryDelay { attributes["loupe.retry.delay_ms"] = (delay * 1_000_000).rounded() / 1000 }
            if let state = attempt.circuitState { attributes["loupe.circuit.state"] = state }
            for (key, value) in attempt.notes { attributes["loupe.note.\(key)"] = value }
        }
        if let error = attempt.error {
            span.setStatus(SpanStatus(code: .error, message: error))
        } else if let status = attempt.status, status >= 400 {
            span.setStatus(SpanStatus(code: .error, message: "HTTP \(status)"))
        }
        if let sent = attempt.requestSentAt { span.addEvent(SpanEvent(name: "loupe.request_sent", at: RecordedInstant(sent))) }
        if let first = attempt.firstByteAt { span.addEvent(SpanEvent(name: "loupe.first_byte", at: RecordedInstant(first))) }
        span.end(at: RecordedInstant(attempt.endedAt ?? fallbackEnd))
    }
}

/// A recorded wall-clock time as a tracer instant (times before 1970 become 1970).
struct RecordedInstant: TracerInstant {
    var nanosecondsSinceEpoch: UInt64

    init(_ date: Date) {
        let nanoseconds = (date.timeIntervalSince1970 * 1e9).rounded()
        nanosecondsSinceEpoch = nanoseconds.isFinite && nanoseconds > 0 ? UInt64(min(nanoseconds, 1.8e19)) : 0
    }

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch }
}

/// OpenTelemetry's HTTP client attributes from a recorded method and URL.
enum SpanHTTPAttributes {
    static func setRequest(method: String, url: String, on attributes: inout SpanAttributes) {
        attributes["http.request.method"] = method
        guard var components = URLComponents(string: url) else {
            attributes["url.full"] = url
            return
        }
        components.user = nil
        components.password = nil
        attributes["url.full"] = components.string ?? url
        if let scheme = components.scheme { attributes["url.scheme"] = scheme }
        if let host = components.host, !host.isEmpty { attributes["server.address"] = host }
        if let port = components.port ?? (components.scheme == "https" ? 443 : components.scheme == "http" ? 80 : nil) {
            attributes["server.port"] = port
        }
    }

    /// The status for 4xx and 5xx; otherwise, when the exchange failed, its outcome.
    static func errorType(status: Int?, outcome: ExchangeOutcome) -> String? {
        if let status, status >= 400 { return String(status) }
        return outcome == .success ? nil : outcome.rawValue
    }
}
