import Foundation
import Loupe
import LoupeTrace

/// One recorded transition of a breaker key, with the exchange that caused it.
public struct BreakerTransitionEntry: Sendable, Hashable {
    /// When it happened (the event's time).
    public var at: Date
    /// The states' names as recorded (`closed`, `open`, `half-open`…).
    public var from: String
    public var to: String
    public var reason: String
    /// The exchange whose request or outcome caused it.
    public var exchangeID: UUID
    public var sequence: Int64?
    /// For a move to open: when the first probe may go (recorded, or the time plus the wait in open).
    public var probeAt: Date?
    /// For open → half-open: when the wait in open ran out (the timer), which may be well before the request
    /// that found it out.
    public var timerAt: Date?

    /// The state moved to, when it is one this version names.
    public var state: CircuitState? { CircuitState(rawValue: to) }
}
