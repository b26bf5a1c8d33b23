import Foundation

/// Measures time passed on an injected clock (the client's, so that tests under a manual clock see exact waits):
/// the one way middleware time their waits, calls and deadlines.
package enum Stopwatch {
    /// Starts timing now; the returned closure gives the time passed since. Opens `any Clock<Duration>` once.
    package static func start<C: Clock>(_ clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// Runs `body` and returns its result with the time it took on `clock`.
    package nonisolated(nonsending) static func measure<C: Clock, T>(
        on clock: C, _ body: nonisolated(nonsending) () async throws -> T
    ) async rethrows -> (T, Duration) where C.Duration == Duration {
        // The instant is kept here rather than in `start`'s closure: no closure context to allocate.
        let start = clock.now
        let result = try await body()
        return (result, start.duration(to: clock.now))
    }

    /// Runs `body` and returns how it ended, success or error, with the time it took on `clock`.
    package nonisolated(nonsending) static func measureResult<C: Clock, T>(
        on clock: C, _ body: nonisolated(nonsending) () async throws -> T
    ) async -> (result: Result<T, any Error>, elapsed: Duration) where C.Duration == Duration {
        let start = clock.now
        do {
            let value = try await body()
            return (.success(value), start.duration(to: clock.now))
        } catch {
            return (.failure(error), start.duration(to: clock.now))
        }
    }
}
