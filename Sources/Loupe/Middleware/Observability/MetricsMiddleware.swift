import HTTPTypes
import Metrics

/// Counts and times exchanges on swift-metrics, and counts the retries below it.
///
/// Put it first in the middleware list so that one exchange is one request, however many attempts the retry
/// middleware makes below it. It emits, with the dimensions `operation`, `host` and `status_class` (`2xx` … `5xx`,
/// or `error` when no response arrived):
/// - `loupe_requests_total` (counter) and `loupe_request_duration_seconds` (timer, on the client's clock);
/// - `loupe_retries_total` (counter, dimensions `operation` and `host`): attempts beyond the first;
/// - `loupe_circuit_breaker_state` (gauge, dimensions `key` and `state`), through ``recordBreakerState(key:state:)``.
///
/// The factory is injected (the global `MetricsSystem.factory` by default), so tests never bootstrap globals.
public struct MetricsMiddleware: ClientMiddleware {
    /// The breaker states that get a 0/1 gauge each, so a dashboard can show the one that is 1.
    public static let breakerStates = ["closed", "open", "half-open", "forced-open", "disabled"]

    /// Where metrics go.
    public let factory: any MetricsFactory

    /// A metrics middleware reporting to `factory`.
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
    }

    public func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse
    ) async throws -> RawResponse {
        let before = context.attemptsSoFar
        let (result, elapsed) = await ObservabilityLabels.measure(context.clock) { try await next(request, body, context) }
        let host = ObservabilityLabels.host(request)
        let status = try? result.get().status.code
        let dimensions = [
            ("operation", context.operation), ("host", host), ("status_class", ObservabilityLabels.statusClass(status)),
        ]
        Counter(label: "loupe_requests_total", dimensions: dimensions, factory: factory).increment()
        Timer(label: "loupe_request_duration_seconds", dimensions: dimensions, preferredDisplayUnit: .seconds, factory: factory)
            .record(duration: elapsed)
        // Attempts happen below middleware; the count they leave on the context tells how many were retries.
        let retries = context.attemptsSoFar - before - 1
        if retries > 0 {
            Counter(label: "loupe_retries_total", dimensions: [("operation", context.operation), ("host", host)], factory: factory)
                .increment(by: retries)
        }
        return try result.get()
    }

    /// Sets the breaker gauge for `key`: 1 for `state`, 0 for every other known state.
    ///
    /// A hook for the circuit breaker (or its observer) to call on each transition; `state` is free text so this
    /// middleware does not depend on the breaker's types.
    public func recordBreakerState(key: String, state: String) {
        for known in Set(Self.breakerStates + [state]) {
            Gauge(label: "loupe_circuit_breaker_state", dimensions: [("key", key), ("state", known)], factory: factory)
                .record(known == state ? 1 : 0)
        }
    }
}
