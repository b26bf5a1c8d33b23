import Foundation

/// The state of one circuit breaker, as the recorder and inspection APIs show it.
public enum CircuitState: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Calls flow; outcomes fill the sliding window.
    case closed
    /// Calls fail fast until the wait in open has elapsed.
    case open
    /// A limited number of probe calls decide whether to close or open again.
    case halfOpen = "half-open"
    /// Opened by hand: every call fails fast until `reset()` or `disable()`.
    case forcedOpen = "forced-open"
    /// Switched off by hand: every call flows and nothing is measured.
    case disabled

    /// The name the recorder shows (`half-open`, `forced-open`…).
    public var description: String { rawValue }
}

/// How one call counts towards the breaker's rates.
public enum CallOutcome: String, Sendable, Hashable, CaseIterable {
    /// The call worked (it may still count as slow).
    case success
    /// The call failed (a 5xx or transport error by default).
    case failure
    /// The call says nothing about the server's health (a 4xx, a cancellation); it is not counted.
    case ignored
}

/// A change of state with the reason for it, in words a person can read in the recorder.
public struct CircuitTransition: Sendable, Hashable, CustomStringConvertible {
    /// The state before.
    public var from: CircuitState
    /// The state after.
    public var to: CircuitState
    /// Why, for example `failure rate 60% ≥ 50% over 20 calls`.
    public var reason: String
    /// When, on the breaker's timeline (time since its clock was first read).
    public var at: Duration
    /// For open → half-open: how long ago the wait in open ran out (the request that moved it came later).
    package var overdue: Duration?

    /// A transition from `from` to `to` at `at`, for `reason`.
    public init(from: CircuitState, to: CircuitState, reason: String, at: Duration) {
        self.from = from
        self.to = to
        self.reason = reason
        self.at = at
    }

    /// `closed → open: failure rate 60% ≥ 50% over 20 calls`.
    public var description: String { "\(from) → \(to): \(reason)" }

    // By hand so that `overdue`, a note for the recorder, is not part of what a transition is.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.from == rhs.from && lhs.to == rhs.to && lhs.reason == rhs.reason && lhs.at == rhs.at
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(from)
        hasher.combine(to)
        hasher.combine(reason)
        hasher.combine(at)
    }
}

/// Permission to send one call; hand it back to `record` with the call's outcome.
package struct CircuitPermit: Sendable, Hashable {
    /// The breaker's state when the call was let through (recorded on the attempt).
    package let state: CircuitState
    /// When the call was let through, on the breaker's timeline.
    package let acquiredAt: Duration
    /// The transition that asking for this permit caused (open → half-open when the wait has elapsed).
    package let transition: CircuitTransition?
    /// The state generation the permit belongs to: an outcome that arrives after a later transition (a slow call
    /// let through before the circuit opened, a probe finishing after half-open was decided) is stale and ignored,
    /// so it can neither pollute a fresh window nor count as a half-open probe it never was.
    let generation: UInt64

    init(state: CircuitState, acquiredAt: Duration, transition: CircuitTransition?, generation: UInt64) {
        self.state = state
        self.acquiredAt = acquiredAt
        self.transition = transition
        self.generation = generation
    }
}
