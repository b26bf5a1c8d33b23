import Foundation

extension ExchangeEventKind {
    /// A breaker key's settings at its first use (attributes `key` and the thresholds, durations in ms), so a
    /// viewer in another process can show rates against the thresholds that apply.
    public static let circuitConfigured = Self(rawValue: "circuit-config")
    /// A call the breaker short-circuited: refused, so nothing was sent (attributes `key`, `state`, and
    /// `retryAfterMs` when a timer decides). Stores written before it took the glossary's word say
    /// `circuit-reject`, which reads as this kind (``ExchangeEventKind/init(rawValue:)``).
    public static let shortCircuit = Self(rawValue: "short-circuit")
    @available(*, deprecated, renamed: "shortCircuit")
    public static let circuitRejected = shortCircuit
}
