import Foundation
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeFormats
@testable import LoupeReplay
import Testing
@testable import LoupeTestSupport

/// The export's direct writer against what it replaced: the exporter's `HAREntry` encoded by `JSONEncoder`, and
/// the `String`-making helpers (`description`, `HARDate`, `uuidString`, `String(validating:)`, `URLComponents`).
/// Random inputs start from a new seed every run; a failure names it.
@Suite("HAR entry writer")
struct HAREntryWriterTests {
    @Test("random exchanges export byte for byte as JSONEncoder wrote the whole document, and import back")
    func randomExchanges() throws {
        let seed = HARStreamFixtures.seed()
        let exchanges = HARStreamFixtures.exchanges(count: 300, seed: seed)
        let streamed = try HARExporter().data(for: exchanges)
        #expect(streamed == (try HARStreamFixtures.wholeDocument(exchanges)), "seed \(seed)")
        let decoded = try HARImporter.document(from: streamed)
        #expect(HARFixtures.difference(decoded, HARExporter().document(for: exchanges)) == nil, "seed \(seed)")
        // Import applies its own rules to impossible values the fixtures hold (a status of 99), so the round trip
        // of exact values is HARRoundTripTests'; here every entry must come back, with its id.
        let imported = try HARImporter().exchanges(from: streamed)
        #expect(imported.map(\.id) == exchanges.map(\.id), "seed \(seed)")
    }

    @Test("strings and maps are written as JSONEncoder writes them")
    func strings() throws {
        struct Values: Encodable {
            var map: [String: String]
            var text: String
        }
        let seed = HARStreamFixtures.seed()
        var random = HARStreamFixtures.Random(state: seed)
        for _ in 0..<2000 {
            let scalars = (0..<random.below(16)).compactMap { _ in
                Unicode.Scalar(UInt32(random.chance(50) ? random.below(0x80) : random.below(0x11_0000)))
            }
            let text = String(String.UnicodeScalarView(scalars))
            let values = Values(map: random.strings().merging([text: text]) { first, _ in first }, text: text)
            let out = HARBytes(capacity: 8, depth: 0)
            let object = out.open(UInt8(ascii: "{"))
            out.member("map", values.map)
            out.member("text", values.text)
            out.close(UInt8(ascii: "}"), object)
            let encoded = JSONInvisibles.escaped(String(decoding: try HARStreamFixtures.encoder.encode(values), as: UTF8.self))
            #expect(Array(out.bytes) == Array(encoded.utf8), "seed \(seed): \(values)")
        }
    }

    @Test("numbers are written as JSONEncoder writes them: edges, and random values on the microsecond grid")
    func numbers() throws {
        let seed = HARStreamFixtures.seed()
        var random = HARStreamFixtures.Random(state: seed)
        var doubles: [Double] = [0, -0.0, -1, 0.5, -0.001, 0.001, 0.000_999, 0.000_1, 123.456, 999_999_999_999_999, 1e15,
                                 1e16, 4_294_967_295.5, 4_294_967_296.5, 3_999_999_999.999_999, 4e9 + 0.25, 2.5e-7,
                                 1_700_000_000.123_456, -62_167_219_200.5, 253_402_300_799.999, .greatestFiniteMagnitude,
                                 .leastNonzeroMagnitude]
        for _ in 0..<5000 {
            let magnitude = [1.0, 1e3, 1e6, 1e9, 4e9, 1e12][random.below(6)]
            let micros = (Double(random.next() % (1 << 52)) / Double(1 << 52) * magnitude * 1e6).rounded()
            doubles.append((random.chance(20) ? -1 : 1) * micros / 1e6)
            doubles.append(HARWriter.microseconds(Double(bitPattern: random.next() >> 2)))  // any finite magnitude
            doubles.append(HARExporter.rounded(Double(random.below(10_000_000)) / 997))
        }
        let ints = [0, 9, 10, -1, -10, 1_234_567, .max, .min]
        let out = HARBytes(capacity: 8, depth: 0)
        let array = out.open(UInt8(ascii: "["))
        for value in doubles where value.isFinite {
            out.element()
            try out.double(value)
        }
        for value in ints {
            out.element()
            out.int(value)
        }
        out.close(UInt8(ascii: "]"), array)
        let expected = try HARStreamFixtures.encoder.encode(doubles.filter(\.isFinite).map(JSONNumber.double) + ints.map(JSONNumber.int))
        let (written, wanted) = (String(decoding: out.bytes, as: UTF8.self), String(decoding: expected, as: UTF8.self))
        #expect(written == wanted, "seed \(seed)")
        if written != wanted {
            let pairs = zip(written.split(separator: "\n"), wanted.split(separator: "\n")).filter { $0 != $1 }
            Issue.record("first differences: \(pairs.prefix(5))")
        }
        #expect(throws: PrettyJSON.InvalidValue.self) { try out.double(.infinity) }
        #expect(throws: PrettyJSON.InvalidValue.self) { try out.double(.nan) }
    }

    @Test("dates and ids are written as HARDate and uuidString write them")
    func datesAndIDs() {
        let seed = HARStreamFixtures.seed()
        var random = HARStreamFixtures.Random(state: seed)
        var dates = [Date(timeIntervalSince1970: .nan), .distantPast, .distantFuture, Date(timeIntervalSince1970: 0),
                     Date(timeIntervalSince1970: -0.0005), Date(timeIntervalSince1970: TraceTime.range.upperBound)]
        for _ in 0..<3000 {
            dates.append(Date(timeIntervalSince1970: Double(Int64(bitPattern: random.next()) % 300_000_000_000) / 1000))
        }
        for date in dates {
            let out = HARBytes(capacity: 8, depth: 0)
            HAREntryWriter.writeDate(date, to: out)
            #expect(String(decoding: out.bytes, as: UTF8.self) == "\"\(HARDate.string(from: date))\"", "seed \(seed)")
        }
        for _ in 0..<200 {
            let id = UUID()
            let out = HARBytes(capacity: 8, depth: 0)
            HAREntryWriter.writeUUID(id, to: out)
            #expect(String(decoding: out.bytes, as: UTF8.self) == "\"\(id.uuidString)\"")
        }
    }

    @Test("bodies are text exactly when String(validating:) takes them as UTF-8")
    func utf8Validation() {
        let seed = HARStreamFixtures.seed()
        var random = HARStreamFixtures.Random(state: seed)
        let pieces: [[UInt8]] = [
            [0x41], [0x00], [0x7F], [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xC2, 0x80], [0xDF, 0xBF],
            [0xE0, 0x80, 0x80], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBF],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xE2, 0x82], [0xF0, 0x9F, 0x98], Array("Zoë ✓ 😀".utf8),
        ]
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<random.below(6) {
                bytes += random.chance(70) ? random.pick(pieces) : [UInt8(random.below(256))]
            }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            #expect(UTF8Validation.isUTF8(Data(bytes)) == expected, "seed \(seed): \(bytes)")
        }
    }

    @Test("query items are what URLComponents gives, for plain URLs and anything else")
    func queryItems() {
        func reference(_ url: String) -> [HARNameValue] {
            (URLComponents(string: url)?.queryItems ?? []).map { HARNameValue(name: $0.name, value: $0.value ?? "") }
        }
        var urls = ["https://a.test/p?", "https://a.test/p?&", "https://a.test/p?a&&b", "https://a.test/p?x=1=2",
                    "https://a.test/p?z", "https://a.test/p?=v", "https://a.test/p?a=%5D%7d", "https://a.test/p?a=%zz",
                    "https://a.test/p?a=%C3%A9", "https://a.test/p?a=%FF", "https://a.test/p?a=b#f",
                    "https://a.test/p?a=b+c", "https://a.test/p?a=naïve", "https://a.test/p?a=b?c", "https://a.test/p#f?x=1",
                    "https://a.test/p?a=%00b", "https://a.test/p?a=%2", "https://a.test/p?a=%", "https://a.test?a=1",
                    "https://a.test/p?a=[1]", "https://xn--e1a.test/p?a=1", "http://127.0.0.1:8080/?q=]}\"",
                    "https://u@a.test/p?a=1", "https://a.test:/p?a=1", "https://a.test:8/p?a=1&b=%41%42", "not a url?x"]
        let seed = HARStreamFixtures.seed()
        var random = HARStreamFixtures.Random(state: seed)
        let alphabet = Array("aZ09-._~:/?#[]@!$&'()*+,;=%%%fF\"<> é\u{0}".unicodeScalars)
        for _ in 0..<5000 {
            var url = random.pick(["https://", "http://a", "h://", "x+y.z://", ""]) + random.pick(["a.test", "a-b.test", "a--b", "", "a.test:80"])
            url += random.pick(["/p", "/", "", "/a%20b"]) + "?"
            for _ in 0..<random.below(14) { url.unicodeScalars.append(random.pick(alphabet)) }
            urls.append(url)
        }
        for url in urls {
            #expect(HARQueryItems.items(of: url) == reference(url), "seed \(seed): \(url)")
        }
        #expect(HARQueryItems.plainItems("https://a.test/p?a=1&b=%5D") != nil)
    }

    @Test("a store exports through its stored header lists the bytes the exchanges it reads give, whatever the rows hold")
    func storeExport() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let seed = HARStreamFixtures.seed()
        // Stored lists in the exact form, and rows edited by hand that are not (read by StoredJSON as before).
        let store = try HARStreamExportTests.store(with: HARStreamFixtures.exchanges(count: 150, seed: seed), in: folder)
        for (batchSize, byteBudget) in [(500, 8 << 20), (7, 1)] {
            var output = Data()
            var writer = HARWriter { output.append($0) }
            try writer.begin()
            try store.export(matching: nil, into: &writer, batchSize: batchSize, byteBudget: byteBudget)
            try writer.finish()
            #expect(writer.count == 150)
            let read = try store.exchanges(matching: nil, limit: .max)
            #expect(output == (try HARStreamFixtures.wholeDocument(read)), "seed \(seed), batches of \(batchSize)")
        }
    }

    @Test("stored header lists in the encoder's exact form are read in place as JSONDecoder reads them; others are not")
    func storedHeaderText() throws {
        let seed = HARStreamFixtures.seed()
        var random = HARStreamFixtures.Random(state: seed)
        for _ in 0..<500 {
            let headers = (0..<random.below(6)).map { _ in TraceHeader(name: random.text(), value: random.text()) }
            let text = StoredJSON.text(of: headers)
            let stored = try #require(StoredHeaderText(text), "seed \(seed): \(text)")
            var read: [TraceHeader] = []
            stored.forEach { name, value in
                read.append(TraceHeader(name: StoredHeaderText.unescaped(name), value: StoredHeaderText.unescaped(value)))
            }
            #expect(read == headers, "seed \(seed): \(text)")
            #expect(read == (try JSONDecoder().decode([TraceHeader].self, from: Data(text.utf8))))
        }
        for text in ["", "[", "[ ]", #"[{"value":"b","name":"a"}]"#, #"[{"name":"a","value":"b"},]"#,
                     #"[{"name":"a","value":"b"} ]"#, #"[{"name":"a\/","value":"b"}]"#, #"[{"name":"\u0041","value":"b"}]"#,
                     #"[{"name":"\u001F","value":"b"}]"#, #"[{"name":"\u000a","value":"b"}]"#, "[{\"name\":\"a\u{1}\",\"value\":\"b\"}]",
                     #"[{"name":"a","value":"b","x":1}]"#, #"[{"name":"a","value":"b"}]x"#, #"[{"name":"a","value":"b\"}]"#] {
            #expect(StoredHeaderText(text) == nil, "\(text)")
        }
        #expect(StoredHeaderText(#"[{"name":"\u001f\"\\","value":"\t/é"}]"#) != nil)
    }
}
