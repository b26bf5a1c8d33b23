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
}
