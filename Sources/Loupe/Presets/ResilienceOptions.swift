import Foundation
import Logging

/// What ``Client/resilient(baseURL:transport:observer:options:configuration:)`` assembles; each part can be
/// tuned or switched off (`nil` / `false`).
public struct ResilienceOptions: Sendable {
    /// Retries of failed attempts (idempotent methods, 408/429/5xx and connection failures by default).
    public var retry: RetryPolicy? = RetryPolicy()
    /// Retries stay under this share of recent requests, so an outage cannot multiply traffic.
    public var retryBudgetRatio: Double? = 0.2
    /// One deadline across all attempts of an exchange.
    public var deadline: Duration? = .seconds(30)
    /// Fails fast while a host keeps failing.
    public var circuitBreaker: CircuitBreakerConfiguration? = CircuitBreakerConfiguration()
    /// What a circuit is kept per.
    public var circuitKeying: CircuitBreakerKeying = .host
    /// Concurrency limits (FIFO queue beyond them).
    public var maxConcurrent: Int? = 64
    public var maxConcurrentPerHost: Int? = 16
    /// Identical in-flight GETs share one call.
    public var deduplicate = true
    /// ETag / Last-Modified revalidation with an in-memory cache.
    public var conditionalGET = true
    /// Bearer credentials with single-flight refresh.
    public var tokenProvider: (any TokenProvider)?
    /// Logs on swift-log (`nil` logs nothing).
    public var logger: Logger?
    /// Metrics on swift-metrics' global factory.
    public var metrics = true
    /// Spans on swift-distributed-tracing's global tracer, with W3C `traceparent` injected.
    public var tracing = true
    /// Each attempt notes the request's non-default ``RequestMetadata`` (priority, cache policy), so recordings
    /// show it.
    public var annotatesMetadata = true

    public init() {}

    /// The chain, outermost first. Why this order:
    /// 1. tracing, logging, metrics see the exchange as the caller does (one span, one log line, one duration),
    ///    and the request's metadata is noted for every attempt below;
    /// 2. de-duplication before retry, so callers who join share the whole retried exchange;
    /// 3. the cache before retry, so a 304 revalidation is one logical request;
    /// 4. retry (with its budget and deadline) wraps everything that is per attempt;
    /// 5. authentication inside retry, so every attempt carries the current credential (no stale-token retries);
    /// 6. throttle inside authentication, so neither a backoff nor a token-refresh wait holds a concurrency slot;
    /// 7. the circuit breaker innermost, so it counts every attempt on the wire and a fast failure stops retries.
    public func middlewares(clock: any Clock<Duration>) -> [any ClientMiddleware] {
        var chain: [any ClientMiddleware] = []
        if tracing { chain.append(TracingMiddleware()) }
        if let logger { chain.append(LoggingMiddleware(logger: logger)) }
        if metrics { chain.append(MetricsMiddleware()) }
        if annotatesMetadata { chain.append(RequestMetadataMiddleware()) }
        if deduplicate { chain.append(DeduplicationMiddleware()) }
        if conditionalGET { chain.append(ConditionalGETMiddleware()) }
        if let retry {
            let budget = retryBudgetRatio.map { RetryBudget(ratio: $0, clock: clock) }
            chain.append(RetryMiddleware(policy: retry, budget: budget, deadline: deadline))
        }
        if let tokenProvider { chain.append(BearerTokenMiddleware(provider: tokenProvider)) }
        if maxConcurrent != nil || maxConcurrentPerHost != nil {
            chain.append(ThrottleMiddleware(maxConcurrent: maxConcurrent, maxConcurrentPerHost: maxConcurrentPerHost))
        }
        if let circuitBreaker { chain.append(CircuitBreakerMiddleware(configuration: circuitBreaker, keying: circuitKeying)) }
        return chain
    }
}
