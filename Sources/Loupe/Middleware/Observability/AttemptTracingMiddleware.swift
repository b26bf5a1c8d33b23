import Foundation
import HTTPTypes
import Tracing

/// Traces every attempt on swift-distributed-tracing: one client span per try on the wire.
///
/// Put it last in the middleware list, below retry, so that each call it sees is one attempt; under a
/// ``TracingMiddleware`` its spans are children of the exchange span. Each span is named after the method (as
/// OpenTelemetry names HTTP client spans) and carries the HTTP attributes, `http.request.resend_count` from the
/// second attempt on, `loupe.attempt`, and why the attempt happened: `loupe.retry.reason`,
/// `loupe.retry.delay_ms` and `loupe.circuit.state` from the context's annotations. The request carries this
/// span's context: the tracer's `traceparent`, or Loupe's fallback whose parent id is the exchange id's low 64
/// bits plus the attempt number.
public struct AttemptTracingMiddleware: ClientMiddleware {
    /// Where spans go.
    public let tracer: any Tracer
    /// Whether to send a W3C `traceparent` built from the exchange id when the tracer writes none.
    public var injectsTraceparentWhenMissing: Bool

    /// An attempt tracing middleware reporting to `tracer`.
    public init(tracer: any Tracer = InstrumentationSystem.tracer, injectsTraceparentWhenMissing: Bool = true) {
        self.tracer = tracer
        self.injectsTraceparentWhenMissing = injectsTraceparentWhenMissing
    }

    public nonisolated(nonsending) func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: Next
    ) async throws -> RawResponse {
        // Only sound when nothing below sends concurrently (no hedging), which is what "placed last" guarantees.
        let attempt = context.attemptsSoFar + 1
        return try await HTTPClientSpan.run(
            request.method.rawValue, tracer: tracer, attempt: attempt, fallback: injectsTraceparentWhenMissing,
            request: request, body: body, context: context,
            annotate: { attributes in
                attributes["loupe.attempt"] = attempt
                if attempt > 1 { attributes["http.request.resend_count"] = attempt - 1 }
                let notes = context.annotations
                if let reason = notes.retryReason { attributes["loupe.retry.reason"] = reason }
                if let delay = notes.retryDelay { attributes["loupe.retry.delay_ms"] = ObservabilityLabels.milliseconds(delay) }
                if let state = notes.circuitState { attributes["loupe.circuit.state"] = state }
            },
            next: next)
    }
}
