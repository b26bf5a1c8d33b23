import Foundation
import Loupe
import LoupeAsyncHTTPClient

/// The client the demo drives: the full resilient stack, tuned so its decisions show within seconds.
public enum DemoClient {
    /// Retries with short backoff, a breaker per endpoint that opens after a few failures and probes after 3 s,
    /// de-duplication, conditional GETs and throttling, recording into `observer`.
    public static func make(baseURL: URL, observer: any ClientObserver) -> Client {
        var options = ResilienceOptions()
        options.retry = RetryPolicy(maxAttempts: 3, backoff: .exponential(base: .milliseconds(100), multiplier: 2, cap: .seconds(1)))
        options.deadline = .seconds(10)
        var breaker = CircuitBreakerConfiguration()
        breaker.slidingWindow = .count(10)
        breaker.minimumNumberOfCalls = 4
        breaker.waitDurationInOpen = .seconds(3)
        breaker.permittedCallsInHalfOpen = 2
        options.circuitBreaker = breaker
        options.circuitKeying = .endpoint
        options.tracing = true  // with no tracer bootstrapped it still sends (and records) a W3C traceparent
        options.metrics = false
        return Client.resilient(baseURL: baseURL, observer: observer, options: options)
    }
}
