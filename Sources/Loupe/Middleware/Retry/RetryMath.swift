import Foundation

/// Duration arithmetic in seconds, rounded back to whole nanoseconds so that delays compare exactly in tests.
enum RetryMath {
    /// A closure returning the time passed on `clock` since the call; opens `any Clock<Duration>` once.
    static func stopwatch<C: Clock>(_ clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    static func duration(seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        // About 292 years in nanoseconds: beyond that Int64 overflows, and no retry waits that long anyway.
        let nanoseconds = min((seconds * 1e9).rounded(), 9.2e18)
        return .nanoseconds(Int64(nanoseconds))
    }

    /// `0.25` for 250 ms: how delays appear in event attributes.
    static func attribute(_ duration: Duration) -> String {
        let value = seconds(duration)
        return value == value.rounded() ? String(Int64(value)) : String(value)
    }

    /// `250 ms` or `1.5 s`: how delays appear in event messages.
    static func words(_ duration: Duration) -> String {
        let value = seconds(duration)
        if value < 1 { return "\(Int64((value * 1000).rounded())) ms" }
        return "\(attribute(duration)) s"
    }
}
