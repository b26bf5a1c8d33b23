import Foundation
import Loupe
import Tracing

/// One span a recorded exchange becomes, as a value: the one mapping from the store's model to OpenTelemetry's
/// that both ``TraceSpanExporter`` (spans through a swift-distributed-tracing `Tracer`) and `LoupeOTLP` (OTLP
/// protobuf sent to a collector) read, so the two can never name or time an exchange differently.
package struct RecordedSpan: Sendable {
    /// Which span of the exchange this is.
    package enum Role: Sendable, Hashable {
        /// The exchange's own span, the parent of its attempts'.
        case exchange
        /// The span of attempt `number` (from 1).
        case attempt(Int)
    }

    /// A span event at a recorded instant.
    package struct Event: Sendable {
        package var name: String
        package var at: Date
        package var attributes: SpanAttributes
    }

    package var role: Role
    /// The operation for the exchange, the method for an attempt (as OpenTelemetry names HTTP client spans).
    package var name: String
    package var start: Date
    package var end: Date
    package var attributes: SpanAttributes
    package var events: [Event]
    /// An error status with its message; nil when the span succeeded (status unset).
    package var errorMessage: String??

    /// Nanoseconds since 1970 of a recorded time (times before 1970 become 0): what OTLP and tracer instants hold.
    package static func unixNanoseconds(_ date: Date) -> UInt64 {
        let nanoseconds = (date.timeIntervalSince1970 * 1e9).rounded()
        return nanoseconds.isFinite && nanoseconds > 0 ? UInt64(min(nanoseconds, 1.8e19)) : 0
    }
}

extension TraceExchange {
    /// The exchange's span followed by one per attempt, in attempt order.
    ///
    /// The exchange span runs from its start to its end (the last attempt's end, or its start, when it has none);
    /// an attempt without an end ends with the exchange. Both carry OpenTelemetry's HTTP client attributes and
    /// Loupe's own, as ``TraceSpanExporter`` documents.
    package var recordedSpans: [RecordedSpan] {
        let lastEnd = attempts.compactMap(\.endedAt).max()
        let end = endedAt ?? lastEnd ?? startedAt
        var attributes = SpanAttributes()
        SpanHTTPAttributes.setRequest(method: method, url: url, on: &attributes)
        if let status { attributes["http.response.status_code"] = status }
        if let errorType = SpanHTTPAttributes.errorType(status: status, outcome: outcome) {
            attributes["error.type"] = errorType
        }
        attributes["loupe.exchange_id"] = id.uuidString
        attributes["loupe.operation"] = operation
        attributes["loupe.outcome"] = outcome.rawValue
        attributes["loupe.attempts"] = attempts.count
        if let replayOf { attributes["loupe.replay_of"] = replayOf.uuidString }
        SpanRPCAttributes.set(self, on: &attributes)
        let events = self.events.map { event in
            var attributes = SpanAttributes()
            attributes["message"] = event.message
            for (key, value) in event.attributes.sorted(by: { $0.key < $1.key }) { attributes[key] = value }
            return RecordedSpan.Event(name: "loupe.\(event.kind)", at: event.at, attributes: attributes)
        }
        let exchangeSpan = RecordedSpan(
            role: .exchange, name: operation, start: startedAt, end: end, attributes: attributes, events: events,
            errorMessage: outcome == .success ? nil : .some(error ?? status.map { "HTTP \($0)" }))
        return [exchangeSpan] + attempts.map { recordedSpan(of: $0, fallbackEnd: end) }
    }

    private func recordedSpan(of attempt: TraceAttempt, fallbackEnd: Date) -> RecordedSpan {
        var attributes = SpanAttributes()
        SpanHTTPAttributes.setRequest(method: method, url: url, on: &attributes)
        if let status = attempt.status { attributes["http.response.status_code"] = status }
        if let status = attempt.status, status >= 400 {
            attributes["error.type"] = String(status)
        } else if attempt.error != nil {
            attributes["error.type"] = ExchangeOutcome.transportError.rawValue
        }
        if attempt.number > 1 { attributes["http.request.resend_count"] = attempt.number - 1 }
        attributes["loupe.exchange_id"] = id.uuidString
        attributes["loupe.attempt"] = attempt.number
        if let reason = attempt.retryReason { attributes["loupe.retry.reason"] = reason }
        if let delay = attempt.retryDelay { attributes["loupe.retry.delay_ms"] = (delay * 1_000_000).rounded() / 1000 }
        if let state = attempt.circuitState { attributes["loupe.circuit.state"] = state }
        for (key, value) in attempt.notes { attributes["loupe.note.\(key)"] = value }
        var errorMessage: String??
        if let error = attempt.error {
            errorMessage = .some(error)
        } else if let status = attempt.status, status >= 400 {
            errorMessage = .some("HTTP \(status)")
        }
        var events: [RecordedSpan.Event] = []
        if let sent = attempt.requestSentAt { events.append(.init(name: "loupe.request_sent", at: sent, attributes: [:])) }
        if let first = attempt.firstByteAt { events.append(.init(name: "loupe.first_byte", at: first, attributes: [:])) }
        return RecordedSpan(
            role: .attempt(attempt.number), name: method, start: attempt.startedAt, end: attempt.endedAt ?? fallbackEnd,
            attributes: attributes, events: events, errorMessage: errorMessage)
    }
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
