import Foundation
import Loupe
import LoupeTrace

/// A breaker's settings as the store knows them: from the `circuit-config` event its key recorded at first use,
/// or Loupe's defaults (``isRecorded`` false) for a store written before that event existed.
public struct BreakerThresholds: Sendable, Hashable {
    /// Open at or above this failure percentage.
    public var failureRate: Double
    /// Open at or above this slow-call percentage.
    public var slowCallRate: Double
    /// A call at least this long (seconds) is slow.
    public var slowCall: TimeInterval
    /// The window holds the last `windowCalls` calls, or the calls of the last `windowSeconds` seconds.
    public var windowCalls: Int?
    public var windowSeconds: Int?
    /// Rates count once the window holds this many calls.
    public var minimumCalls: Int
    /// Seconds open before a probe may go.
    public var waitInOpen: TimeInterval
    /// Probes let through in half-open.
    public var halfOpenCalls: Int
    /// Whether these came from the store (false: Loupe's defaults, assumed).
    public var isRecorded: Bool

    /// The settings of `configuration` (what the recorder writes).
    public init(_ configuration: CircuitBreakerConfiguration, isRecorded: Bool = true) {
        failureRate = configuration.failureRateThreshold
        slowCallRate = configuration.slowCallRateThreshold
        slowCall = Self.seconds(configuration.slowCallDuration)
        switch configuration.slidingWindow {
        case .count(let calls): windowCalls = calls
        case .time(let seconds): windowSeconds = seconds
        }
        minimumCalls = configuration.minimumNumberOfCalls
        waitInOpen = Self.seconds(configuration.waitDurationInOpen)
        halfOpenCalls = configuration.permittedCallsInHalfOpen
        self.isRecorded = isRecorded
    }

    /// Loupe's defaults, marked as assumed.
    public static let assumed = BreakerThresholds(CircuitBreakerConfiguration(), isRecorded: false)

    /// Reads a `circuit-config` event's attributes; each number is range-checked, and a missing or bad one
    /// keeps the default.
    public init(attributes: [String: String]) {
        self = .assumed
        isRecorded = true
        func number(_ name: String, _ range: ClosedRange<Double>) -> Double? {
            attributes[name].flatMap(Double.init).flatMap { $0.isFinite && range.contains($0) ? $0 : nil }
        }
        failureRate = number("failureRate", 0.001...100) ?? failureRate
        slowCallRate = number("slowCallRate", 0.001...100) ?? slowCallRate
        slowCall = number("slowCallMs", 0...86_400_000).map { $0 / 1000 } ?? slowCall
        minimumCalls = number("minimumCalls", 1...1_000_000).map { Int($0) } ?? minimumCalls
        waitInOpen = number("waitMs", 0...86_400_000).map { $0 / 1000 } ?? waitInOpen
        halfOpenCalls = number("halfOpenCalls", 1...1_000_000).map { Int($0) } ?? halfOpenCalls
        if let calls = number("windowCalls", 1...1_000_000) {
            windowCalls = Int(calls)
            windowSeconds = nil
        } else if let seconds = number("windowSeconds", 1...86_400) {
            windowSeconds = Int(seconds)
            windowCalls = nil
        }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
