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
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        for index in 6..<16 {
            let source = index < 8 ? high : low
            bytes[index] = UInt8(truncatingIfNeeded: source >> (8 * (index % 8)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x70  // version 7
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 9562 variant
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
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
