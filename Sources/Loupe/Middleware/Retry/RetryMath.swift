import Foundation

/// Duration arithmetic in seconds, rounded back to whole nanoseconds so that delays compare exactly in tests.
enum RetryMath {
    static func seconds(_ duration: Duration) -> Double { duration.inSeconds }

    static func duration(seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        // About 292 years in nanoseconds: beyond that Int64 overflows, and no retry waits that long anyway.
        let nanoseconds = min((seconds * 1e9).rounded(), 9.2e18)
        return .nanoseconds(Int64(nanoseconds))
    }

    /// `250 ms` or `1.5 s`: how delays appear in event messages (attributes hold ``Swift/Duration/storedMilliseconds``).
    static func words(_ duration: Duration) -> String {
        let value = seconds(duration)
        if value < 1 { return "\(Int64((value * 1000).rounded())) ms" }
        return "\(value == value.rounded() ? String(Int64(value)) : String(value)) s"
    }
}
