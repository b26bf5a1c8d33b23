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
        let spans = exchange.recordedSpans
        guard let exchangeSpan = spans.first else { return }
        let parent = start(exchangeSpan, context: context)
        for attempt in spans.dropFirst() {
            start(attempt, context: parent.context).end(at: RecordedInstant(attempt.end))
        }
        parent.end(at: RecordedInstant(exchangeSpan.end))
    }

    /// Starts `recorded` as a client span with its attributes, status and events; the caller ends it.
    private func start(_ recorded: RecordedSpan, context: ServiceContext) -> any Span {
        let span = tracer.startSpan(recorded.name, context: context, ofKind: .client, at: RecordedInstant(recorded.start))
        span.updateAttributes { $0.merge(recorded.attributes) }
        if let message = recorded.errorMessage { span.setStatus(SpanStatus(code: .error, message: message)) }
        for event in recorded.events {
            span.addEvent(SpanEvent(name: event.name, at: RecordedInstant(event.at), attributes: event.attributes))
        }
        return span
    }
}

/// A recorded wall-clock time as a tracer instant (times before 1970 become 1970).
struct RecordedInstant: TracerInstant {
    var nanosecondsSinceEpoch: UInt64

    init(_ date: Date) {
        nanosecondsSinceEpoch = RecordedSpan.unixNanoseconds(date)
    }

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch }
}
