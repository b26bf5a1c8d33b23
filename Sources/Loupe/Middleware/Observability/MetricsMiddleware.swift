import HTTPTypes
import Metrics
import Synchronization

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
    private let handles: MetricHandles

    /// A metrics middleware reporting to `factory`.
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        self.handles = MetricHandles(factory: factory)
    }

    public nonisolated(nonsending) func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: Next
    ) async throws -> RawResponse {
        let before = context.attemptsSoFar
        let (result, elapsed) = await Stopwatch.measureResult(on: context.clock) { try await next(request, body, context) }
        let host = ObservabilityLabels.host(request)
        let status = try? result.get().status.code
        let series = handles.series(operation: context.operation, host: host, statusClass: ObservabilityLabels.statusClass(status))
        series.requests.increment()
        series.duration.record(duration: elapsed)
        // Attempts happen below middleware; the count they leave on the context tells how many were retries.
        let retries = context.attemptsSoFar - before - 1
        if retries > 0 {
            handles.retries(operation: context.operation, host: host).increment(by: retries)
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

/// The metric objects per (operation, host, status class), made once: swift-metrics asks callers to reuse them,
/// since making one goes through the factory (a lock and a lookup in most backends, an allocation in all).
private final class MetricHandles: Sendable {
    struct Key: Hashable {
        let operation: String, host: String, statusClass: String
    }

    struct Series {
        let requests: Counter, duration: Timer
    }

    /// The labels are low-cardinality by design; past this many series something is not (say, an operation named
    /// after a URL), and new ones are made per call instead of growing the cache without end.
    static let maxSeries = 4_096
    let factory: any MetricsFactory
    private let cache = Mutex<[Key: Series]>([:])
    /// Per (operation, host), made at the first retry: a backend should not show a retry series that never moved.
    private let retryCounters = Mutex<[Key: Counter]>([:])

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    func series(operation: String, host: String, statusClass: String) -> Series {
        let key = Key(operation: operation, host: host, statusClass: statusClass)
        if let series = cache.withLock({ $0[key] }) { return series }
        let dimensions = [("operation", operation), ("host", host), ("status_class", statusClass)]
        let series = Series(
            requests: Counter(label: "loupe_requests_total", dimensions: dimensions, factory: factory),
            duration: Timer(
                label: "loupe_request_duration_seconds", dimensions: dimensions, preferredDisplayUnit: .seconds,
                factory: factory))
        return cache.withLock { cache in
            if let existing = cache[key] { return existing }
            if cache.count < Self.maxSeries { cache[key] = series }
            return series
        }
    }

    func retries(operation: String, host: String) -> Counter {
        let key = Key(operation: operation, host: host, statusClass: "")
        if let counter = retryCounters.withLock({ $0[key] }) { return counter }
        let counter = Counter(label: "loupe_retries_total", dimensions: [("operation", operation), ("host", host)], factory: factory)
        return retryCounters.withLock { counters in
            if let existing = counters[key] { return existing }
            if counters.count < Self.maxSeries { counters[key] = counter }
            return counter
        }
    }
}
