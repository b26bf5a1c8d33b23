import Foundation
import Synchronization

/// Makes exchange ids as UUID version 7 (RFC 9562): time-ordered, so the recorder's index stays append-mostly,
/// and generated in-process (Foundation's `UUID()` reads /dev/urandom on every call on Linux).
public enum ExchangeID {
    private static let generator = Mutex(IDRandomSource(seed: UInt64.random(in: .min ... .max)))

    /// A new version-7 UUID for the current time.
    public static func make(now: Date = Date()) -> UUID {
        let milliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        let (high, low) = generator.withLock { ($0.next(), $0.next()) }
        // Bytes straight into the tuple, no array: an array was a heap allocation on every request.
        func byte(_ value: UInt64, _ shift: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: value >> shift) }
        return UUID(uuid: (
            byte(milliseconds, 40), byte(milliseconds, 32), byte(milliseconds, 24), byte(milliseconds, 16),
            byte(milliseconds, 8), byte(milliseconds, 0),
            (byte(high, 48) & 0x0F) | 0x70, byte(high, 56),  // version 7
            (byte(low, 0) & 0x3F) | 0x80, byte(low, 8),  // RFC 9562 variant
            byte(low, 16), byte(low, 24), byte(low, 32), byte(low, 40), byte(low, 48), byte(low, 56)))
    }
}

/// A small, fast generator for the random bits of ids (not for secrets).
struct IDRandomSource: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
