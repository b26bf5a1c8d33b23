import Foundation
import HTTPTypes
import Tracing

/// Traces each exchange on swift-distributed-tracing: one client span from the first attempt to the last.
///
/// Put it first in the middleware list. The span is named after the operation and carries OpenTelemetry's HTTP
/// attributes (`http.request.method`, `url.full`, `server.address`, `server.port`, `http.response.status_code`,
/// `error.type`) plus `loupe.exchange_id`, `loupe.operation` and `loupe.attempts`; a 4xx or 5xx, or a thrown
/// error, sets the error status. Attempts happen below middleware, so a span per attempt comes from
/// ``AttemptTracingMiddleware`` placed last, which becomes a child of this span:
///
/// ```swift
/// middlewares: [TracingMiddleware(), MetricsMiddleware(), retry, breaker, AttemptTracingMiddleware()]
/// ```
///
/// The request carries the span's context (the tracer's `traceparent`, or Loupe's fallback, see
/// ``injectsTraceparentWhenMissing``); an ``AttemptTracingMiddleware`` below replaces it with each attempt's.
/// The tracer is injected (the global `InstrumentationSystem.tracer` by default), so tests never bootstrap it.
public struct TracingMiddleware: ClientMiddleware {
    /// Where spans go.
    public let tracer: any Tracer
    /// Whether to send a W3C `traceparent` built from the exchange id when the tracer writes none.
    public var injectsTraceparentWhenMissing: Bool

    /// A tracing middleware reporting to `tracer`.
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
        let before = context.attemptsSoFar
        return try await HTTPClientSpan.run(
            context.operation, tracer: tracer, attempt: 0, fallback: injectsTraceparentWhenMissing,
            request: request, body: body, context: context,
            annotate: { $0["loupe.operation"] = context.operation },
            finish: { $0.attributes["loupe.attempts"] = context.attemptsSoFar - before },
            next: next)
    }
}
