import Foundation
import Loupe
import LoupeAsyncHTTPClient

/// The client the demo drives: the full resilient stack, tuned so its decisions show within seconds.
public enum DemoClient {
    /// Retries with short backoff, a breaker per endpoint that opens after a few failures and probes after 3 s,
    /// de-duplication, conditional GETs and throttling, recording into `observer`.
    ///
    /// `transport` replaces the default AsyncHTTPClient one (wrapped in rules, say), and `breakers` is the registry
    /// the breaker middleware drives (``breakerRegistry()``), for whoever forces its keys.
    public static func make(
        baseURL: URL, observer: any ClientObserver, transport: (any ClientTransport)? = nil,
        breakers: CircuitBreakerRegistry? = nil
    ) -> Client {
        var options = ResilienceOptions()
        options.retry = RetryPolicy(maxAttempts: 3, backoff: .exponential(base: .milliseconds(100), multiplier: 2, cap: .seconds(1)))
        options.deadline = .seconds(10)
        // The breaker innermost, as the preset puts it, on a registry the caller may hold.
        options.circuitBreaker = nil
        options.tracing = true  // with no tracer bootstrapped it still sends (and records) a W3C traceparent
        options.metrics = false
        let middlewares = options.middlewares(clock: ContinuousClock())
            + [CircuitBreakerMiddleware(registry: breakers ?? breakerRegistry())]
        return Client(baseURL: baseURL, transport: transport ?? AsyncHTTPClientTransport(), middlewares: middlewares,
                      observer: observer)
    }

    /// A breaker per endpoint that opens after a few failures and probes after 3 s.
    public static func breakerRegistry() -> CircuitBreakerRegistry {
        var breaker = CircuitBreakerConfiguration()
        breaker.slidingWindow = .count(10)
        breaker.minimumNumberOfCalls = 4
        breaker.waitDurationInOpen = .seconds(3)
        breaker.permittedCallsInHalfOpen = 2
        return CircuitBreakerRegistry(configuration: breaker, keying: .endpoint)
    }
}
