import Foundation
@_spi(JSON) @testable import LoupeTrace
@testable import LoupeFormats
import Testing
@testable import LoupeTestSupport

/// The word-at-a-time scanner against a byte-at-a-time reference, and its users (the export's string writer, body
/// validation, the fast string reader, the import's skipping) on text long enough to take the word path: long ASCII
/// runs with the bytes that matter at every offset of a word. Random inputs start from a new seed every run; a
/// failure names it.
@Suite("JSON byte scan")
struct JSONByteScanTests {
    /// Bytes next to each edge the masks test (0x1F/0x20, `!"#`, `[\]`, 0x7F/0x80, 0xFF), and a run of letters.
    static let edges: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7E, 0x7F, 0x80, 0xC3, 0xFE, 0xFF]

    static func bytes(_ random: inout HARStreamFixtures.Random, count: Int, specials percent: Int) -> [UInt8] {
        (0..<count).map { _ in random.chance(percent) ? random.pick(edges) : UInt8(ascii: "a") + UInt8(random.below(26)) }
    }

    static func isStop(_ byte: UInt8, orNonASCII: Bool) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (orNonASCII && byte >= 0x80)
    }

    @Test("every start, every length to 70: the first stop, the first non-ASCII byte and the copy are the reference's")
    func againstReference() {
        let seed = HARStreamFixtures.seed()
        var random = HARStreamFixtures.Random(state: seed)
        for round in 0..<3000 {
            let input = Self.bytes(&random, count: random.below(71), specials: [1, 5, 30][round % 3])
            input.withUnsafeBufferPointer { buffer in
                for start in 0...input.count {
                    for orNonASCII in [false, true] {
                        let expected = input[start...].firstIndex { Self.isStop($0, orNonASCII: orNonASCII) } ?? input.count
                        let found = JSONByteScan.firstStop(in: buffer, from: start, orNonASCII: orNonASCII)
                        #expect(found == expected, "seed \(seed): \(input) from \(start)")
                    }
                    let nonASCII = input[start...].firstIndex { $0 >= 0x80 } ?? input.count
                    #expect(JSONByteScan.firstNonASCII(in: buffer, from: start) == nonASCII, "seed \(seed): \(input)")

                    // Exactly the room the contract asks for, with guard bytes after it that must stay.
                    let room = input.count - start
                    var out = [UInt8](repeating: 0xAA, count: room + 8)
                    let stop = out.withUnsafeMutableBufferPointer {
                        JSONByteScan.copyToStop(from: buffer, start: start, to: $0.baseAddress!)
                    }
                    let expectedStop = input[start...].firstIndex { Self.isStop($0, orNonASCII: false) } ?? input.count
                    #expect(stop == expectedStop, "seed \(seed): \(input) from \(start)")
                    #expect(Array(out[0..<(stop - start)]) == Array(input[start..<stop]), "seed \(seed): \(input)")
                    #expect(out[room...].allSatisfy { $0 == 0xAA }, "seed \(seed): wrote past its room")
                }
            }
        }
    }

    @Test("long strings with specials at every offset are written as JSONEncoder writes them")
    func longStrings() throws {
        let encoder = HARStreamFixtures.encoder
        let seed = HARStreamFixtures.seed()
        var random = HARStreamFixtures.Random(state: seed)
        let pieces = ["\"", "\\", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "/", "é", "✓", "😀", "\r\n", "\"q\""]
        for round in 0..<2000 {
            var text = ""
            for _ in 0..<random.below(40) {
                text += random.chance([5, 25, 60][round % 3]) ? random.pick(pieces) : String(repeating: "x", count: random.below(12))
            }
            let out = HARBytes(capacity: 8, depth: 0)
            out.string(text)
            // As the encoder writes it, with DEL, C1 and bidi controls escaped too (DECISIONS 87).
            let encoded = JSONInvisibles.escaped(String(decoding: try encoder.encode(text), as: UTF8.self))
            #expect(Array(out.bytes) == Array(encoded.utf8), "seed \(seed): \(text.debugDescription)")

            var index = 0
            let read = Array(out.bytes).withUnsafeBufferPointer { PlainJSONString.read($0, at: &index) }
            let plain = !text.unicodeScalars.contains {
                ($0.value < 0x20 && !"\n\t\r\u{8}\u{C}".unicodeScalars.contains($0)) || JSONInvisibles.isEscaped($0)
            }
            if plain { #expect(read == text && index == out.count, "seed \(seed): \(text.debugDescription)") }
        }
    }

    @Test("long bodies are text exactly when String(validating:) takes them as UTF-8, the bad byte anywhere in a word")
    func longBodies() {
        let seed = HARStreamFixtures.seed()
        var random = HARStreamFixtures.Random(state: seed)
        let pieces: [[UInt8]] = [[0x80], [0xC0, 0x80], [0xC3, 0xA9], [0xED, 0xA0, 0x80], [0xE2, 0x9C, 0x93],
                                 [0xF0, 0x9F, 0x98, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF], [0xE2, 0x82]]
        for _ in 0..<5000 {
            var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: random.below(40))
            for _ in 0..<random.below(3) {
                bytes.insert(contentsOf: random.pick(pieces), at: random.below(bytes.count + 1))
            }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            #expect(UTF8Validation.isUTF8(Data(bytes)) == expected, "seed \(seed): \(bytes)")
        }
    }

    @Test("a body of JSON text, every quote escaped, is read back whole by the fast reader")
    func escapedJSONBody() throws {
        let body = String(data: try JSONEncoder().encode((0..<2000).map { ["id": "\($0)", "name": "Zoë \"\($0)\" \\"] }), encoding: .utf8)!
        let quoted = Array(try JSONEncoder().encode(body))
        var index = 0
        let read = quoted.withUnsafeBufferPointer { PlainJSONString.read($0, at: &index) }
        #expect(read == body)
        #expect(index == quoted.count)
    }
    /// The one escape table (``JSONByteScan/escape(_:)``, which `PrettyJSON`, the store's header lists and the HAR
    /// writer share) writes every byte a JSON string must escape as `JSONEncoder` does.
    @Test func everyEscapeAsJSONEncoderWritesIt() throws {
        for byte in Array(UInt8(0)..<0x20) + [UInt8(ascii: "\""), UInt8(ascii: "\\")] {
            let encoded = try JSONEncoder().encode(String(UnicodeScalar(byte)))
            let expected = Array(encoded.dropFirst().dropLast())  // without the quotes
            let (word, count) = JSONByteScan.escape(byte)
            let escaped = withUnsafeBytes(of: word.littleEndian) { Array($0.prefix(count)) }
            #expect(escaped == expected, "byte \(byte)")
            var room = [UInt8](repeating: 0xEE, count: 8)
            let written = room.withUnsafeMutableBufferPointer { JSONByteScan.writeEscape(of: byte, to: $0.baseAddress!) }
            #expect(Array(room.prefix(written)) == expected && room[written...].allSatisfy { $0 == 0xEE }, "byte \(byte)")
        }
    }
}
