// Fixtures for the circuit breaker tests: small configurations and a client on a manual clock.
import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

extension CircuitBreakerConfiguration {
    /// A breaker that trips quickly: a count window of `window` calls, evaluated from `minimum` calls.
    static func small(window: Int = 4, minimum: Int = 4, failureRate: Double = 50, wait: Duration = .seconds(30),
                      permitted: Int = 2) -> Self {
        var configuration = CircuitBreakerConfiguration()
        configuration.slidingWindow = .count(window)
        configuration.minimumNumberOfCalls = minimum
        configuration.failureRateThreshold = failureRate
        configuration.waitDurationInOpen = wait
        configuration.permittedCallsInHalfOpen = permitted
        return configuration
    }
}

/// A client whose clock is `clock`, so breaker waits and call durations follow the test.
func makeBreakerClient(
    _ transport: any ClientTransport,
    middlewares: [any ClientMiddleware],
    observer: any ClientObserver = NoOpClientObserver(),
    clock: ManualClock,
    base: String = "https://api.example.com/v1"
) -> Client {
    var configuration = ClientConfiguration()
    configuration.clock = clock
    return Client(baseURL: URL(string: base)!, transport: transport, middlewares: middlewares, observer: observer,
                  configuration: configuration)
}

extension CircuitBreakerStateMachine {
    /// Acquires a permit that the test expects to be granted.
    mutating func mustProceed(at now: Duration, sourceLocation: SourceLocation = #_sourceLocation) -> CircuitPermit? {
        if case .proceed(let permit) = acquirePermission(now: now) { return permit }
        Issue.record("expected a permit at \(now), state \(circuitState)", sourceLocation: sourceLocation)
        return nil
    }

    /// Acquires a permit that must be granted, throwing (and failing the test) when it is not.
    mutating func permit(at now: Duration, sourceLocation: SourceLocation = #_sourceLocation) throws -> CircuitPermit {
        try #require(mustProceed(at: now, sourceLocation: sourceLocation), sourceLocation: sourceLocation)
    }

    /// Runs one permitted call that ends at once with `outcome`; returns the transition it caused.
    @discardableResult
    mutating func call(_ outcome: CallOutcome, at now: Duration, duration: Duration = .zero,
                       sourceLocation: SourceLocation = #_sourceLocation) -> CircuitTransition? {
        guard let permit = mustProceed(at: now, sourceLocation: sourceLocation) else { return nil }
        return record(outcome, duration: duration, permit: permit, now: now + duration)
    }
}
