import Foundation

extension ExchangeEventKind {
    /// A breaker key's settings at its first use (attributes `key` and the thresholds, durations in ms), so a
    /// viewer in another process can show rates against the thresholds that apply.
    public static let circuitConfigured = Self(rawValue: "circuit-config")
    /// A call the breaker did not permit (attributes `key`, `state`, and `retryAfterMs` when a timer decides).
    public static let circuitRejected = Self(rawValue: "circuit-reject")
}
