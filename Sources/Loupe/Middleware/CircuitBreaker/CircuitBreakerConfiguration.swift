import Foundation
import HTTPTypes

/// How a circuit breaker measures calls and when it trips.
///
/// Defaults follow Resilience4j (failure rate 50 %, slow-call rate 100 % at 60 s, 60 s open, 10 half-open probes,
/// a count-based window of 100) except the minimum number of calls: 20 instead of 100. A client talks to each
/// host far less often than a server-side service does, and with a minimum of 100 a breaker keyed per host would
/// almost never trip; 20 calls still need 10 failures at 50 %, a sample too large to be bad luck.
public struct CircuitBreakerConfiguration: Sendable {
    /// What the rates are computed over.
    public enum SlidingWindow: Sendable, Hashable {
        /// The last `n` recorded calls.
        case count(Int)
        /// Calls recorded in the last `n` seconds, in one-second buckets of the injected clock.
        case time(seconds: Int)
    }

    /// The sliding window of the closed state.
    public var slidingWindow: SlidingWindow = .count(100)
    /// Rates are evaluated only once the window holds this many calls (capped at the size of a count window).
    public var minimumNumberOfCalls = 20
    /// Open when failures make up at least this percentage of the window (0 < x ≤ 100).
    public var failureRateThreshold: Double = 50
    /// Open when slow calls make up at least this percentage of the window (0 < x ≤ 100).
    public var slowCallRateThreshold: Double = 100
    /// A call that takes at least this long is slow, whether it succeeded or failed.
    public var slowCallDuration: Duration = .seconds(60)
    /// How long the circuit stays open before letting probes through.
    public var waitDurationInOpen: Duration = .seconds(60)
    /// How many probe calls half-open lets through; further calls fail fast until those complete.
    public var permittedCallsInHalfOpen = 10
    /// Decides whether a response or error is a success, a failure or ignored.
    public var classify: @Sendable (CircuitCallResult) -> CallOutcome = Self.defaultClassification

    /// The defaults described above.
    public init() {}

    /// 5xx and transport errors are failures; cancellations and other short-circuits are ignored; 4xx and other
    /// statuses are successes, because a 404 says the server is healthy enough to answer.
    public static let defaultClassification: @Sendable (CircuitCallResult) -> CallOutcome = { result in
        switch result {
        case .response(let head):
            return head.status.kind == .serverError ? .failure : .success
        case .error(let error):
            if error is CancellationError || error is any ShortCircuitError { return .ignored }
            if let transport = error as? TransportError, transport.kind == .cancelled { return .ignored }
            return .failure
        }
    }
}

/// What came back from one call, for ``CircuitBreakerConfiguration/classify``.
public enum CircuitCallResult: Sendable {
    /// A response arrived.
    case response(HTTPResponse)
    /// The call threw (usually a ``TransportError``).
    case error(any Error)
}
