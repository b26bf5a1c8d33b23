import Foundation
import Loupe
import Testing

@Suite struct ExchangeIDTests {
    @Test func idsAreVersion7AndOrderedByTime() {
        let early = ExchangeID.make(now: Date(timeIntervalSince1970: 1_700_000_000))
        let late = ExchangeID.make(now: Date(timeIntervalSince1970: 1_700_000_000.002))
        for id in [early, late] {
            let bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 7, "version nibble")
            #expect(bytes[8] >> 6 == 0b10, "RFC 9562 variant")
        }
        // The first 48 bits are the Unix time in milliseconds, big-endian.
        let prefix = withUnsafeBytes(of: early.uuid) { $0.prefix(6).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        #expect(prefix == 1_700_000_000_000)
        #expect(early.uuidString < late.uuidString)
    }

    @Test func idsAreUnique() {
        let now = Date()
        let ids = (0..<10_000).map { _ in ExchangeID.make(now: now) }
        #expect(Set(ids).count == ids.count)
    }
}
