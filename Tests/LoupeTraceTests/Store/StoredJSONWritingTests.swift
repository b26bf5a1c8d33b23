import Foundation
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

@Suite("StoredJSON writing")
struct StoredJSONWritingTests {
    /// What the store wrote with `JSONEncoder` before, and what the raw baseline and other tools still write.
    static func encoded(_ headers: [TraceHeader]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(headers), as: UTF8.self)
    }

    /// Every escape JSON has, a slash, DEL, and characters outside the BMP and in its separators.
    static let awkward = "\"\\/\u{0}\u{8}\u{9}\u{A}\u{C}\u{D}\u{1F}\u{7F} é😀\u{2028}"

    @Test("a header list is written byte for byte as JSONEncoder writes it, and reads back the same")
    func headerListMatchesTheEncoder() throws {
        let everyASCII = String(decoding: Array(0..<0x80 as Range<UInt8>), as: UTF8.self)
        let lists: [[TraceHeader]] = [
            [],
            [TraceHeader(name: "", value: "")],
            [TraceHeader(name: "Accept", value: "application/json"), TraceHeader(name: "User-Agent", value: "Loupe/1.0")],
            [TraceHeader(name: everyASCII, value: String(everyASCII.reversed()))],
            [TraceHeader(name: "X-Quote", value: #"a "b" \c\ /d/"#), TraceHeader(name: "X-Dup", value: "1"),
             TraceHeader(name: "X-Dup", value: "2")],
            [TraceHeader(name: "X-Text", value: "é ü 日本 😀 \u{2028}\u{2029}\u{FEFF}\u{7F}\u{85}\u{0}\u{1F}")],
            [TraceHeader(name: Self.awkward, value: Self.awkward), TraceHeader(name: "Set-Cookie", value: "a=b; Path=/x")],
        ]
        for headers in lists {
            let written = StoredJSON.text(of: headers)
            #expect(written == (try Self.encoded(headers)))
            #expect(try StoredJSON.headers(written) == headers)
            #expect(try JSONDecoder().decode([TraceHeader].self, from: Data(written.utf8)) == headers)
        }
    }

    @Test("the row's header-list writer writes what text(of:) writes, byte for byte, on random lists of awkward text")
    func pointerWriterMatchesTheText() throws {
        // Pieces around the word the scan copies (8 bytes): runs shorter, equal and longer, every control character,
        // quotes and backslashes in a row, multi-byte UTF-8 across a word's edge. A Swift `String` holds no invalid
        // UTF-8 (decoding repairs it), so none can reach the writer.
        let controls = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
        let pieces = controls + ["\"", "\\", "\"\"\\\\", "/", "\u{7F}", "é", "日本", "😀", "\u{2028}", "a", "abcdefg", "abcdefgh",
                                 "abcdefghijklmnopq", "application/json; charset=utf-8", "Bearer [redacted]", Self.awkward]
        let seed = HARStreamFixtures.seed()
        var random = HARStreamFixtures.Random(state: seed)
        func text(_ random: inout HARStreamFixtures.Random) -> String {
            (0..<random.below(7)).map { _ in random.pick(pieces) }.joined()
        }
        var lists: [[TraceHeader]] = [[], [TraceHeader(name: "", value: "")]]
        for _ in 0..<500 {
            lists.append((0..<random.below(6)).map { _ in TraceHeader(name: text(&random), value: text(&random)) })
        }
        for headers in lists {
            let bound = StoredJSON.textBound(of: headers)
            // Guard bytes past the bound: the writer stores whole words, and must not go past its room.
            var room = [UInt8](repeating: 0xEE, count: bound + 16)
            let length = room.withUnsafeMutableBufferPointer { StoredJSON.write(headers, into: $0.baseAddress!) }
            #expect(length <= bound, "seed \(seed)")
            #expect(room[bound...].allSatisfy { $0 == 0xEE }, "seed \(seed)")
            let expected = StoredJSON.text(of: headers)
            #expect(Array(room[..<length]) == Array(expected.utf8), "seed \(seed): \(headers)")
            #expect(expected == (try Self.encoded(headers)), "seed \(seed)")
        }
    }

    @Test("a linked exchange's source is written byte for byte as JSONEncoder writes it, and reads back the same")
    func sourceMatchesTheEncoder() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let everyASCII = String(decoding: Array(0..<0x80 as Range<UInt8>), as: UTF8.self)
        for source in [TraceSource(app: "checkout", host: "box.local", pid: 7), TraceSource(app: "", host: "", pid: 0),
                       TraceSource(app: Self.awkward, host: everyASCII, pid: -1),
                       TraceSource(app: "é😀/\u{2028}", host: "日本", pid: Int.max), TraceSource(app: "a", host: "b", pid: Int.min)] {
            let written = StoredJSON.text(of: source)
            #expect(written == String(decoding: try encoder.encode(source), as: UTF8.self))
            #expect(try JSONDecoder().decode(TraceSource.self, from: Data(written.utf8)) == source)
        }
    }

    @Test("a map is written byte for byte as JSONEncoder writes it, keys in its order, and reads back the same")
    func mapMatchesTheEncoder() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let keys = ["", "a", "A", "a10", "a9", "_x", "~", "é", "e\u{301}x", "😀", "Z", "circuit.key", Self.awkward]
        let seed = HARStreamFixtures.seed()
        var random = HARStreamFixtures.Random(state: seed)
        var maps: [[String: String]] = [[:], ["cache": "miss", "auth.generation": "1", "circuit.key": "127.0.0.1:8080"]]
        for _ in 0..<300 {
            var map: [String: String] = [:]
            for _ in 0..<random.below(6) { map[random.pick(keys) + random.text()] = random.pick(keys) + random.text() }
            maps.append(map)
        }
        for map in maps {
            let written = StoredJSON.text(of: map)
            #expect(written == String(decoding: try encoder.encode(map), as: UTF8.self), "seed \(seed): \(map)")
            #expect(try JSONDecoder().decode([String: String].self, from: Data(written.utf8)) == map, "seed \(seed)")
            #expect(StoredJSON.notes(written) == map, "seed \(seed)")
        }
    }
}
