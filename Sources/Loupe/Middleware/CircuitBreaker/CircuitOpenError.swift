import Foundation

/// A call failed fast because its circuit breaker would not let it through; nothing was sent.
///
/// The client reports the exchange as short-circuited. A retry middleware placed outside the breaker can read
/// ``retryAfter`` to wait exactly until the next probe instead of guessing.
public struct CircuitOpenError: ShortCircuitError, Sendable, Hashable, CustomStringConvertible {
    /// The breaker's key (a host, an operation name…).
    public var key: String
    /// The state that rejected the call: open, half-open (all probes in flight) or forced-open.
    public var state: CircuitState
    /// Time until the next probe may go; `nil` when no timer decides it (forced open, or half-open waiting for
    /// its probes to complete).
    public var retryAfter: Duration?

    /// A rejection by the breaker for `key` in `state`.
    public init(key: String, state: CircuitState, retryAfter: Duration?) {
        self.key = key
        self.state = state
        self.retryAfter = retryAfter
    }

    /// One sentence for logs and the recorder, with the wait until the next probe when there is one.
    public var description: String {
        switch (state, retryAfter) {
        case (.forcedOpen, _): "circuit \(key) is forced open"
        case (.halfOpen, _): "circuit \(key) is half-open and all its probes are in flight"
        case (_, let wait?): "circuit \(key) is \(state); next probe in \(CircuitBreakerStateMachine.format(wait))"
        case (_, nil): "circuit \(key) is \(state)"
        }
    }
}
