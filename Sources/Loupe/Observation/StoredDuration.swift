import Foundation

extension Duration {
    /// This duration as every stored event attribute holds one: milliseconds, in decimal, to the microsecond
    /// (`"250"`, `"199.25"`, `"0.001"`), never negative. Attribute keys that hold one end in `Ms`.
    package var storedMilliseconds: String {
        let milliseconds = (max(inSeconds, 0) * 1_000_000).rounded() / 1000
        guard milliseconds.isFinite else { return "0" }
        return milliseconds == milliseconds.rounded() && milliseconds < 1e15
            ? String(Int64(milliseconds)) : String(milliseconds)
    }

    /// This duration in seconds, as a `Double` (the unit of `TraceAttempt.retryDelay` and of `TimeInterval`).
    package var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
