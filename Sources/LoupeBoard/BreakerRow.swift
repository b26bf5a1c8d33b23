import Foundation
import Loupe
import LoupeTrace

/// One breaker key as the circuits screen shows it, at one moment.
public struct BreakerRow: Sendable {
    public var key: String
    /// The recorded state (an open breaker whose wait is over stays open until a request probes: see ``probeIn``).
    public var state: CircuitState
    public var thresholds: BreakerThresholds
    /// Failures and slow calls as percentages of the calls in the window (`nil` with no calls).
    public var failureRate: Double?
    public var slowCallRate: Double?
    /// Calls in the current window (emptied by every transition, as the breaker's own window is).
    public var callsInWindow: Int
    /// Calls the breaker refused, in all.
    public var notPermitted: Int
    /// Seconds until the next probe may go, when open (0 once it is due).
    public var probeIn: TimeInterval?
    /// Requests and failures per second over the last two minutes, oldest first.
    public var series: [(requests: Int, failures: Int)]
    public var lastTransition: BreakerTransitionEntry?
    /// Envoy's retry figures for this key: retries sent, retries the budget refused, retried exchanges that
    /// succeeded.
    public var retries: Int
    public var budgetDenied: Int
    public var retrySucceeded: Int
}
