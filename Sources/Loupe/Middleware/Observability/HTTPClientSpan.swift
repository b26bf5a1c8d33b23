import Foundation
import HTTPTypes
import Tracing

/// One OpenTelemetry HTTP client span around a call down the middleware chain, shared by ``TracingMiddleware``
/// (a span per exchange) and ``AttemptTracingMiddleware`` (a span per attempt).
enum HTTPClientSpan {
    /// Runs `next` inside a client span named `name`. The span gets the HTTP request attributes,
    /// `loupe.exchange_id` and whatever `annotate` adds; the request sent on carries the span's context (see
    /// `TraceContextPropagation`, with `attempt` and `fallback`); then the span gets the response status, or
    /// `error.type` for a thrown error, and finally whatever `finish` adds either way.
    nonisolated(nonsending) static func run(
        _ name: String, tracer: any Tracer, attempt: Int, fallback: Bool,
        request: HTTPRequest, body: RequestBody?, context: RequestContext,
        function: String = #function, file fileID: String = #fileID, line: UInt = #line,
        annotate: (inout SpanAttributes) -> Void,
        finish: (any Span) -> Void = { _ in },
        next: ClientMiddleware.Next
    ) async throws -> RawResponse {
        // `withSpan`, written out: its closure ran on the global executor whatever the caller's executor (a hop in and
        // out of every traced exchange, MiddlewareIsolationTests); the steps and their order are the same.
        let span = tracer.startSpan(name, context: InstrumentationContext.current ?? .topLevel, ofKind: .client,
                                    function: function, file: fileID, line: line)
        defer { span.end() }
        do {
            // A span that records nothing (the NoOp tracer, or one sampled out) would drop every attribute; building
            // them anyway parses the URL and fills a dictionary of strings for nothing.
            let recording = span.isRecording
            if recording {
                span.updateAttributes { attributes in
                    setRequest(request, on: &attributes)
                    attributes["loupe.exchange_id"] = context.exchangeID.uuidString
                    annotate(&attributes)
                }
            }
            var request = request
            TraceContextPropagation.inject(
                span.context, tracer: tracer, into: &request, exchangeID: context.exchangeID, attempt: attempt,
                fallback: fallback)
            do {
                let response = try await bound(span.context) { try await next(request, body, context) }
                if recording {
                    setResponse(response, on: span)
                    finish(span)
                }
                return response
            } catch {
                if recording {
                    span.attributes["error.type"] = ObservabilityLabels.errorType(error)
                    finish(span)
                }
                throw error
            }
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }

    /// Runs `body` with `context` as the task's current one, on the caller's executor. A closure that captures
    /// only `Sendable` values is itself taken as `@Sendable` and runs on the global executor, so the closure here
    /// captures the isolation (an `isolated` parameter) to stay where the caller is.
    private static func bound<T>(
        _ context: InstrumentationContext, isolation: isolated (any Actor)? = #isolation,
        _ body: nonisolated(nonsending) () async throws -> T
    ) async throws -> T {
        try await InstrumentationContext.$current.withValue(context, operation: {
            _ = isolation
            return try await body()
        }, isolation: isolation)
    }

    /// OpenTelemetry's HTTP client request attributes.
    private static func setRequest(_ request: HTTPRequest, on attributes: inout SpanAttributes) {
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
    private static func setResponse(_ response: RawResponse, on span: any Span) {
        let status = response.status.code
        span.attributes["http.response.status_code"] = status
        if let errorType = ObservabilityLabels.errorType(status: status) {
            span.attributes["error.type"] = errorType
            span.setStatus(SpanStatus(code: .error, message: "HTTP \(status)"))
        }
    }
}
