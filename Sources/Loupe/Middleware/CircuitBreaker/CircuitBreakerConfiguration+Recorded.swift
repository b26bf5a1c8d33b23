import Foundation

extension CircuitBreakerConfiguration {
    /// The settings as the `circuit-config` event records them (numbers in decimal, durations in milliseconds);
    /// `BreakerThresholds(attributes:)` in LoupeTrace reads them back.
    public var recordedAttributes: [String: String] {
        func number(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        }
        var attributes = [
            "failureRate": number(failureRateThreshold), "slowCallRate": number(slowCallRateThreshold),
            "slowCallMs": slowCallDuration.storedMilliseconds, "minimumCalls": String(minimumNumberOfCalls),
            "waitMs": waitDurationInOpen.storedMilliseconds, "halfOpenCalls": String(permittedCallsInHalfOpen),
        ]
        switch slidingWindow {
        case .count(let calls): attributes["windowCalls"] = String(calls)
        case .time(let seconds): attributes["windowSeconds"] = String(seconds)
        }
        return attributes
    }
}
