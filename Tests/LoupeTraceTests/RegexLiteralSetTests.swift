import Foundation
@testable import LoupeFilter
import LoupeTrace
import Testing

/// An ASCII literal's set is built without testing all 128 ASCII scalars (DECISIONS 165): it must hold exactly
/// what the general construction holds.
@Suite struct RegexLiteralSetTests {
    @Test func asciiLiteralsMatchTheGeneralConstruction() {
        for value in UInt32(0)..<128 {
            let scalar = Unicode.Scalar(value)!
            for caseless in [false, true] {
                let fast = RegexScalarSet.scalar(scalar, caseless: caseless)
                let general = RegexScalarSet([.range(value, value)], caseless: caseless)
                #expect(fast.asciiMasks == general.asciiMasks, "\(value) caseless: \(caseless)")
                for probe: UInt32 in [0x212A, 0x17F, 0xE9, 0xC9] {
                    #expect(fast.contains(probe) == general.contains(probe), "\(value) \(probe)")
                }
            }
        }
        #expect(RegexScalarSet.scalar("k", caseless: true).contains(0x212A), "the Kelvin sign is a caseless k")
    }

    @Test func aLongLiteralFilterParsesQuickly() throws {
        let text = "~u " + String(repeating: "a", count: 1_990)
        let clock = ContinuousClock()
        let start = clock.now
        _ = try TraceFilter.parse(text)
        // 0.35 s in a debug build before; generous for a loaded machine.
        #expect(clock.now - start < .milliseconds(150))
    }
}
