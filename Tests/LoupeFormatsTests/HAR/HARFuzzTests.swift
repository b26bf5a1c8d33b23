import Foundation
import LoupeQuery
import LoupeTrace
import LoupeFormats
import PropertyBased
import Testing
@testable import LoupeTestSupport

@Suite("HAR fuzzing")
struct HARFuzzTests {
    /// Bytes worth splicing into JSON: structure, awkward numbers and strings, Loupe's own keys.
    static let splices: [String] = [
        "{", "}", "[", "]", "\"", ",", ":", "null", "true", "-1", "0", "1e309", "-0.0", "99999999999999999999999",
        "NaN", "\"\\u0000\"", "\"\\ud800\"", "\"x\"", "{}", "[]", "\"_loupe\": {}", "\"format\": 1",
        "\"encoding\": \"base64\"", "\"startedDateTime\": \"9999-12-31T23:59:60.9999999-23:59\"",
        "\"time\": 1e300", "\"status\": -5", "\"size\": 1e20", "\"version\": \"1.1\"", "\\", "é", "\u{0}",
    ]

    /// One edit of the file, chosen by `seed`.
    static func mutate(_ bytes: inout [UInt8], seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        guard !bytes.isEmpty else { return }
        let position = Int(random.next() % UInt64(bytes.count))
        let length = Int(random.next() % 64)
        let end = min(bytes.count, position + length)
        switch random.next() % 6 {
        case 0: bytes.removeSubrange(position...)                                        // truncate
        case 1: bytes.removeSubrange(position..<end)                                     // delete
        case 2: bytes.insert(contentsOf: Array(splices[Int(random.next() % UInt64(splices.count))].utf8), at: position)
        case 3: bytes[position] = UInt8(truncatingIfNeeded: random.next())               // flip a byte
        case 4: bytes.insert(contentsOf: Array(bytes[position..<end]), at: end)          // duplicate
        default:                                                                          // replace a digit run
            if let digit = bytes[position...].firstIndex(where: { (0x30...0x39).contains($0) }) {
                bytes.replaceSubrange(digit...digit, with: Array(String(random.next() % 100_000_000_000).utf8))
            }
        }
    }

    static let loupeHAR = Array(try! HARExporter().data(for: HARFixtures.exchanges))
    static let chromeHAR = Array(HARFixtures.chromeHAR.utf8)
    static let edits = Gen.uint64().array(of: 1...6)

    /// Whatever the bytes, import either fails with a one-line ``HARImportError`` or gives exchanges whose export
    /// imports and exports again to the same bytes.
    static func check(_ bytes: [UInt8]) throws {
        let importer = HARImporter()
        switch Result(catching: { () throws(HARImportError) in try importer.exchanges(from: Data(bytes)) }) {
        case .success(let exchanges):
            let exported = try HARExporter().data(for: exchanges)
            let again = try importer.exchanges(from: exported)
            #expect(try HARExporter().data(for: again) == exported)
            #expect(again.map(\.id) == exchanges.map(\.id))
        case .failure(let error):
            #expect(!error.message.isEmpty)
            #expect(!error.message.contains("\n"))
        }
    }

    @Test("mutated Loupe HARs never crash the importer")
    func mutatedLoupeHAR() async {
        await propertyCheck(count: 1000, input: Self.edits) { seeds in
            var bytes = Self.loupeHAR
            for seed in seeds { Self.mutate(&bytes, seed: seed) }
            try Self.check(bytes)
        }
    }

    @Test("mutated Chrome HARs never crash the importer")
    func mutatedChromeHAR() async {
        await propertyCheck(count: 1000, input: Self.edits) { seeds in
            var bytes = Self.chromeHAR
            for seed in seeds { Self.mutate(&bytes, seed: seed) }
            try Self.check(bytes)
        }
    }

    @Test("every truncation of a HAR is reported as bad input")
    func truncations() throws {
        let bytes = Self.chromeHAR
        for length in stride(from: 0, to: bytes.count - 2, by: 7) {
            #expect(throws: HARImportError.self) { try HARImporter().exchanges(from: Data(bytes[..<length])) }
        }
    }
}
