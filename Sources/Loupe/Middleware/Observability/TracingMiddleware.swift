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

    public func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse
    ) async throws -> RawResponse {
        try await tracer.withSpan(context.operation, ofKind: .client) { span in
            span.updateAttributes { attributes in
                HTTPSpanAttributes.setRequest(request, on: &attributes)
                attributes["loupe.exchange_id"] = context.exchangeID.uuidString
                attributes["loupe.operation"] = context.operation
            }
            var request = request
            TraceContextPropagation.inject(
                span.context, tracer: tracer, into: &request, exchangeID: context.exchangeID, attempt: 0,
                fallback: injectsTraceparentWhenMissing)
            let before = context.attemptsSoFar
            do {
                let response = try await next(request, body, context)
                HTTPSpanAttributes.setResponse(response, on: span)
                span.attributes["loupe.attempts"] = context.attemptsSoFar - before
                return response
            } catch {
                span.attributes["error.type"] = ObservabilityLabels.errorType(error)
                span.attributes["loupe.attempts"] = context.attemptsSoFar - before
                throw error  // withSpan records the error and sets the error status
            }
        }
    }
}

/// OpenTelemetry HTTP client attributes, shared by the exchange and attempt spans.
enum HTTPSpanAttributes {
    static func setRequest(_ request: HTTPRequest, on attributes: inout SpanAttributes) {
        attributes["http.request.method"] = request.method.rawValue
        attributes["url.full"] = ObservabilityLabels.displayURL(request)
        if let url = request.url {
            if let host = url.host { attributes["server.address"] = host }
            if let port = url.port ?? (url.scheme == "https" ? 443 : url.scheme == "http" ? 80 : nil) {
                attributes["server.port"] = port
            }
            if let scheme = url.scheme { attributes["url.scheme"] = scheme }
        }
    }

    /// Status code, and for a client span, error status and `error.type` on 4xx and 5xx.
    static func setResponse(_ response: RawResponse, on span: any Span) {
        let status = response.status.code
        span.attributes["http.response.status_code"] = status
        if let errorType = ObservabilityLabels.errorType(status: status) {
            span.attributes["error.type"] = errorType
            span.setStatus(SpanStatus(code: .error, message: "HTTP \(status)"))
        }
    }
}
