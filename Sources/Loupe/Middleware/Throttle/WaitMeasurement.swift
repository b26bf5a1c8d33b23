import Foundation

/// Measures how long a middleware waited (for a refresh, a throttle permit) on the client's injected clock, so
/// recorded waits are exact under a manual clock in tests.
enum WaitMeasurement {
    /// Runs `body` and returns its result with the time it took on `clock`.
    static func measure<C: Clock, T>(
        on clock: C, _ body: () async throws -> T
    ) async rethrows -> (T, Duration) where C.Duration == Duration {
        try await Stopwatch.measure(on: clock, body)
    }

    /// Whole milliseconds, as recorded in event attributes.
    static func milliseconds(_ duration: Duration) -> String {
        duration.storedMilliseconds
    }
}
