import Foundation
import Testing
@testable import LoupeTrace

@Suite("Stored ids read without Foundation's parser")
struct StoredUUIDTests {
    @Test("well-formed ids, in either case, read as UUID(uuidString:) reads them")
    func wellFormed() {
        for _ in 0..<500 {
            let id = UUID()
            for text in [id.uuidString, id.uuidString.lowercased()] {
                #expect(StoredUUID.parse(text) == id, "\(text)")
            }
        }
        #expect(StoredUUID.parse("00000000-0000-0000-0000-000000000000") == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        #expect(StoredUUID.parse("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF") == UUID(uuidString: "ffffffff-ffff-ffff-ffff-ffffffffffff"))
    }

    @Test("ids are written as uuidString writes them, every byte value in every position")
    func written() {
        var ids = (0..<500).map { _ in UUID() }
        for byte in UInt8.min...UInt8.max {
            ids.append(UUID(uuid: (byte, byte, byte, byte, byte, byte, byte, byte, byte, byte, byte, byte, byte, byte, byte, byte)))
        }
        for id in ids {
            #expect(StoredUUID.text(of: id) == id.uuidString)
            #expect(StoredUUID.parse(StoredUUID.text(of: id)) == id)
        }
    }

    /// Foundation's parser on Linux is `sscanf`, which also takes leading spaces and short fields; this one takes the
    /// canonical form only, and what it takes Foundation reads the same.
    @Test("every one-character damage that leaves the canonical form is refused; what is read, Foundation reads alike")
    func damaged() {
        let text = Array("6BA7B810-9DAD-11D1-80B4-00C04FD430C8")
        var cases: [String] = ["", "6BA7B810", String(text) + "0", " " + String(text), String(text.dropLast()) + "é"]
        for index in text.indices {
            for replacement in ["g", "G", "-", "0", " ", "/", ":", "@", "`", "\u{0}"] {
                var damaged = text
                damaged[index] = Character(replacement)
                cases.append(String(damaged))
            }
            var shorter = text
            shorter.remove(at: index)
            cases.append(String(shorter))
        }
        let canonical = /[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/
        for text in cases {
            let parsed = StoredUUID.parse(text)
            #expect((parsed != nil) == (text.wholeMatch(of: canonical) != nil), "\(text.debugDescription)")
            if let parsed { #expect(parsed == UUID(uuidString: text), "\(text.debugDescription)") }
        }
    }
}
