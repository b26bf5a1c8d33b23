import Foundation
import Synchronization

/// A reproducible, thread-safe source of random numbers (SplitMix64) for jitter and fault injection in tests.
///
/// ```swift
/// let random = SeededRandomSource(seed: 42)
/// let policy = RetryPolicy(jitter: .full, random: random.inRange)
/// let faults = FaultPlan.random(resetRate: 0.1, random: random.unit)
/// var generator = SeededRandomSource(seed: 7)
/// let index = Int.random(in: 0..<10, using: &generator)
/// ```
///
/// It is also a `RandomNumberGenerator`, so the standard library's `random(in:using:)` and `shuffled(using:)`
/// draw from the same reproducible sequence.
public final class SeededRandomSource: RandomNumberGenerator, Sendable {
    private let state: Mutex<UInt64>

    /// A source whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        state = Mutex(seed)
    }

    /// The next 64 random bits.
    public func next() -> UInt64 {
        state.withLock { state in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A number in `0..<1`.
    public func nextUnit() -> Double {
        Double(next() >> 11) / Double(UInt64(1) << 53)
    }

    /// A closure drawing numbers in `0..<1`, for ``FaultPlan/random(resetRate:timeoutRate:latencyRate:latency:random:)``.
    public var unit: @Sendable () -> Double {
        { [self] in nextUnit() }
    }

    /// A closure drawing numbers in a range, for `RetryPolicy(random:)`.
    public var inRange: @Sendable (ClosedRange<Double>) -> Double {
        { [self] range in range.lowerBound + nextUnit() * (range.upperBound - range.lowerBound) }
    }
}
