import Foundation

/// Turns the instants of any injected clock into offsets from its first reading, so state machines compare
/// plain `Duration`s and never hold a clock.
///
/// A clock's `Instant` type is hidden behind `any Clock<Duration>`; the first reading is kept as the origin and
/// later readings of the same instant type are measured from it. A reading of another instant type (a registry
/// fed by two differently-clocked clients) starts a new timeline: use one clock per registry.
struct BreakerTimeline: Sendable {
    private var origin: (any InstantProtocol<Duration>)?
    /// The clock read last, used for manual operations that have no request context.
    private(set) var lastClock: (any Clock<Duration>)?

    /// Reads `clock` and returns the time since the timeline's origin.
    mutating func now(on clock: any Clock<Duration>) -> Duration {
        lastClock = clock
        return offset(of: clock.now)
    }

    /// Reads the last clock used (or a `ContinuousClock` before any).
    mutating func now() -> Duration {
        now(on: lastClock ?? ContinuousClock())
    }

    private mutating func offset<Instant: InstantProtocol<Duration>>(of instant: Instant) -> Duration {
        if let origin = origin as? Instant { return origin.duration(to: instant) }
        origin = instant
        return .zero
    }
}
