import Foundation
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeFormats
import PropertyBased
import Testing
@testable import LoupeTestSupport

@Suite("HAR streaming import")
struct HARStreamImportTests {
    /// The importer with ids handed out in order, so two reads of a file give the same exchanges.
    static func importer() -> HARImporter {
        let ids = SequentialIDs((0..<64).map { UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", $0))! })
        return HARImporter(makeID: { ids.next() })
    }

    /// What decoding the whole document at once gives (the importer before it streamed).
    static func wholeDocument(_ data: Data) -> Result<[TraceExchange], HARImportError> {
        Result { () throws(HARImportError) in try importer().wholeDocumentExchanges(from: data) }
    }

    /// What the streaming importer gives, read through a window of `chunkSize` bytes.
    static func streamed(_ data: Data, chunkSize: Int = 1 << 20) -> Result<[TraceExchange], HARImportError> {
        var exchanges: [TraceExchange] = []
        return Result { () throws(HARImportError) in
            try HARImporter.onlyImportErrors {
                _ = try importer().forEachExchange(in: data, chunkSize: chunkSize) { exchanges.append($0) }
            }
            return exchanges
        }
    }

    static func har(_ entries: [String], log: String = #""version": "1.2", "creator": {"name": "t", "version": "1"}"#) -> Data {
        Data(#"{"log": {\#(log), "entries": [\#(entries.joined(separator: ", "))]}}"#.utf8)
    }

    static func entry(url: String = "https://a.test/", header: String = "v", body: String = "b") -> String {
        #"{"startedDateTime": "2024-03-10T10:00:00Z", "time": 1, "request": {"method": "GET", "url": "\#(url)", "headers": [{"name": "X-\#(header)", "value": "\#(header)"}]}, "response": {"status": 200, "headers": [], "content": {"size": 0, "mimeType": "text/plain", "text": "\#(body)"}}}"#
    }

    @Test("strings holding ], }, quotes, backslashes and unicode escapes read as one document read them",
          arguments: [1 << 20, 1, 7, 64])
    func awkwardStrings(chunkSize: Int) throws {
        let pieces = [#"]"#, #"}"#, #"\""#, #"\\"#, #"\\\""#, #"]}\"]}"#, #"\u0041\u00e9\u2028\ud83d\ude00"#, #"\/"#,
                      #"{\"a\": [\"]\"]}"#, #"\\u0041"#, #"tab\there"#]
        var entries = pieces.map { Self.entry(url: "https://a.test/?q=" + $0, header: $0, body: $0) }
        entries.append(#"{"startedDateTime": "2024-03-10T10:00:00Z", "request": {"url": "https://b.test/", "\u0068eaders": [], "postData": {"mimeType": "x", "text": "]}"}}}"#)
        let data = Self.har(entries)
        let expected = try Self.wholeDocument(data).get()
        #expect(expected.count == entries.count)
        #expect(try Self.streamed(data, chunkSize: chunkSize).get() == expected)
        #expect(expected[5].responseBody?.data == Data(#"]}"]}"#.utf8))
        #expect(expected[6].requestHeaders.first?.value == "Aé\u{2028}😀")
    }

    @Test("Loupe's own export reads back the same through any window size")
    func ownExport() throws {
        let data = try HARExporter().data(for: HARStreamFixtures.exchanges(count: 60, seed: 21))
        let expected = try Self.wholeDocument(data).get()
        for chunkSize in [3, 100, 4096, 1 << 20] {
            #expect(try Self.streamed(data, chunkSize: chunkSize).get() == expected)
        }
    }

    @Test("each entry's byte range in the file reads back as the exchange the stream gave (what `loupe serve` serves)")
    func entryRangesReadBack() throws {
        let exported = try HARExporter().data(for: HARStreamFixtures.exchanges(count: 40, seed: 5))
        // A byte order mark and a foreign entry too: offsets count from the file's first byte.
        let foreign = Self.har([Self.entry(url: "https://a.test/x?q=1", body: "short")])
        for data in [exported, Data([0xEF, 0xBB, 0xBF]) + foreign] {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("ranges-\(UUID().uuidString).har")
            try data.write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            var seen: [(TraceExchange, Range<Int>)] = []
            let importer = Self.importer()
            let count = try importer.forEachExchangeWithRange(contentsOf: url) { seen.append(($0, $1)) }
            #expect(count == seen.count && !seen.isEmpty)
            for (index, (exchange, range)) in seen.enumerated() {
                var again = try importer.exchange(entryBytes: data.subdata(in: range), index: index)
                again.id = exchange.id  // a foreign entry gets a new id each time it is read
                #expect(again == exchange)
            }
        }
    }

    @Test("the log's fields may come in any order, with escaped keys, duplicates (the first counts) and a BOM")
    func logShapes() throws {
        let entry = Self.entry()
        for data in [
            Data(#"{"log": {"entries": [\#(entry)], "version": "1.2"}}"#.utf8),
            Data(#"{"x": [{"log": 1}], "\u006cog": {"\u0065ntries": [\#(entry)]}, "log": 5}"#.utf8),
            Data(#"{"log": {"entries": [\#(entry), ], "entries": 7, "version": 1.2, "version": "9"}}"#.utf8),
            Data([0xEF, 0xBB, 0xBF]) + Self.har([entry]),
        ] {
            #expect(try Self.streamed(data).get().count == 1)
            #expect(try Self.wholeDocument(data).get().count == 1)
        }
    }

    @Test("bad files give the error whole-document decoding gave",
          arguments: [
              #"{"log": {"entries": [\#(HARStreamImportTests.entry())], "version": "2.0"}}"#,
              #"{"log": {"entries": [{"startedDateTime": "x", "request": {"url": "u"}}], "version": "2.0"}}"#,
              #"{"log": {"version": "1.2", "entries": [{"request": {}}, {"startedDateTime": "bad"}]}}"#,
              #"{"log": {"version": "1.2", "entries": [5]}}"#,
              #"{"log": {"version": "1.2", "entries": [\#(HARStreamImportTests.entry()), {"startedDateTime": "2024-03-10T10:00:00Z", "request": {"url": "https://a/", "headers": {}}}]}}"#,
              #"{"log": {"version": "1.2"}}"#, #"{"log": {"entries": null}}"#, #"{"log": null}"#, #"{"log": []}"#,
              #"{"lag": {}}"#, #"[{"log": {}}]"#, #"null"#, #""log""#, #"{"log": {"version": {"x": 1}, "entries": []}}"#,
              #"{"log": {"version": true, "entries": []}}"#, #"{"log": {"version": "1.2", "entries": [1,]}, }"#,
              #"{"log": {"version": "1.2", "entries": [{"a": "\u12"}]}}"#, #"{"log": {"version": "1.2", "entries": [tru]}}"#,
              #"{"log": {"version": "1.2", "entries": [], "x": nul}}"#, #"{"log": {} } x"#, #"{"log": {"entries": [,]}}"#,
              "{\"log\": {\"entries\": [1 2]}}", #"{"log": {"entries": [{"a" 1}]}}"#, #"{"log": {"entries": [{1: 2}]}}"#,
          ])
    func badFiles(_ text: String) {
        let data = Data(text.utf8)
        switch (Self.wholeDocument(data), Self.streamed(data), Self.streamed(data, chunkSize: 2)) {
        case (.success(let expected), .success(let actual), .success(let small)):
            #expect(actual == expected && small == expected)
        case (.failure(let expected), .failure(let actual), .failure(let small)):
            #expect(actual.code == expected.code)
            #expect(small == actual)
            // Syntax errors are located by the reader itself; every other message is the decoder's, word for word.
            if expected.code != .malformedJSON { #expect(actual.message == expected.message) }
        case let (expected, actual, small):
            Issue.record("whole document: \(expected); streamed: \(actual); small window: \(small)")
        }
    }

    @Test("mutated HARs: the streaming reader accepts what whole-document decoding accepted, with the same result")
    func mutatedFilesAgree() async {
        await Self.mutatedFilesAgreeCheck()
    }

    /// Whole-document decoding decodes every entry before converting any, so an entry that does not decode wins over
    /// an earlier one refused when converted (a mutated file found this: a bad time, then invalid UTF-8).
    @Test("an entry that does not decode is reported before an earlier one refused when converted")
    func decodingBeforeConverting() throws {
        let refusedWhenConverted = Self.entry().replacingOccurrences(of: "2024-03-10T10:00:00Z", with: "not a date")
        let undecodable = Data(Self.entry().utf8).replacing(Data("method".utf8), with: Data([0x6D, 0x65, 0xFF, 0x74, 0x68]))
        let data = Data(#"{"log": {"version": "1.2", "entries": ["#.utf8) + Data(refusedWhenConverted.utf8)
            + Data(", ".utf8) + undecodable + Data("]}}".utf8)
        let expected = try #require(Self.wholeDocument(data).failure)
        for chunkSize in [1 << 20, 7] {
            let actual = try #require(Self.streamed(data, chunkSize: chunkSize).failure)
            #expect(actual.code == expected.code, "\(expected) vs \(actual)")
            #expect(!actual.message.contains("startedDateTime"), "\(actual)")
        }
        #expect(!expected.message.contains("startedDateTime"), "\(expected)")
        // Alone, the first entry is refused for its time, by both.
        let alone = Data(#"{"log": {"version": "1.2", "entries": ["#.utf8) + Data(refusedWhenConverted.utf8) + Data("]}}".utf8)
        #expect(Self.streamed(alone).failure?.message == Self.wholeDocument(alone).failure?.message)
        #expect(Self.streamed(alone).failure?.message.contains("startedDateTime") == true)
    }

    static func mutatedFilesAgreeCheck() async {
        await propertyCheck(count: 600, input: HARFuzzTests.edits) { seeds in
            var bytes = seeds.first.map { $0 % 2 == 0 } == true ? HARFuzzTests.loupeHAR : HARFuzzTests.chromeHAR
            for seed in seeds { HARFuzzTests.mutate(&bytes, seed: seed) }
            let data = Data(bytes)
            switch (Self.wholeDocument(data), Self.streamed(data, chunkSize: 97)) {
            case (.success(let expected), .success(let actual)):
                #expect(actual == expected)
            case (.failure(let expected), .failure(let actual)):
                // A syntax error may be named differently (the reader finds it itself), never a different kind.
                let syntax: Set<HARImportError.Code> = [.malformedJSON, .truncated]
                #expect(actual.code == expected.code || (syntax.contains(actual.code) && syntax.contains(expected.code)),
                        "\(expected) vs \(actual)")
            case let (expected, actual):
                Issue.record("whole document: \(expected); streamed: \(actual)")
            }
        }
    }

    /// A mutated file found this: a raw control character in the `entries` key read as a missing `entries`.
    @Test("a raw control character in a key the reader reads, in a skipped value or in an entry: as JSONDecoder")
    func controlCharacters() {
        for control in [0x00, 0x01, 0x0A, 0x1F] as [UInt8] {
            for (before, after) in [(#"{"log": {"entr"#, #"ies": [], "version": "1.2"}}"#),
                                    (#"{"log": {"creator": {"name": "a"#, #""}, "entries": []}}"#),
                                    (#"{"log": {"entries": [{"x": "a"#, #""}]}}"#)] {
                let data = Data(before.utf8) + Data([control]) + Data(after.utf8)
                let expected = Self.wholeDocument(data).failure?.code
                for chunkSize in [1, 1 << 20] {
                    #expect(Self.streamed(data, chunkSize: chunkSize).failure?.code == expected, "\(before) \(control)")
                }
            }
        }
    }

    @Test("invalid UTF-8 in a key of the top level or `log` is refused, in what is skipped passes: as JSONDecoder does")
    func invalidUTF8() {
        for bad: [UInt8] in [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x28, 0xA1]] {
            let badKeys = [
                Data(#"{"log": {"entr"#.utf8) + Data(bad) + Data(#"ies": [], "version": "1.2"}}"#.utf8),
                Data(#"{"log": {"x"#.utf8) + Data(bad) + Data(#"": 1, "entries": []}}"#.utf8),
                Data(#"{"y"#.utf8) + Data(bad) + Data(#"": 1, "log": {"entries": []}}"#.utf8),
            ]
            for data in badKeys {
                #expect((try? Self.wholeDocument(data).get()) == nil)
                for chunkSize in [1, 1 << 20] {
                    #expect(throws: HARImportError.self) { try Self.streamed(data, chunkSize: chunkSize).get() }
                }
            }
            // Keys of an object nothing decodes, and values, are never read: both readers pass them.
            for skipped in [
                Data(#"{"log": {"creator": {"name": "x"#.utf8) + Data(bad) + Data(#""}, "entries": []}}"#.utf8),
                Data(#"{"log": {"creator": {"na"#.utf8) + Data(bad) + Data(#"me": "x"}, "entries": []}}"#.utf8),
            ] {
                #expect((try? Self.wholeDocument(skipped).get())?.isEmpty == true)
                for chunkSize in [1, 1 << 20] { #expect((try? Self.streamed(skipped, chunkSize: chunkSize).get())?.isEmpty == true) }
            }
        }
        // Valid multibyte keys (é, €, 😀) pass, split across any window.
        let fine = Data(#"{"log": {"é€😀": 1, "entries": [], "version": "1.2"}}"#.utf8)
        for chunkSize in [1, 2, 3, 1 << 20] { #expect((try? Self.streamed(fine, chunkSize: chunkSize).get())?.isEmpty == true) }
    }

    /// The reader skips keys eight bytes to a step: what it must stop at is found at any offset of a word.
    @Test("a bad byte, a control character or an escape at any offset of a long key: as JSONDecoder")
    func longKeys() {
        // `\s`, `\x` and `\0` are escapes JSON does not have: the mutated-HAR property test found `"ve\sion"` passed.
        for bad: [UInt8] in [[0xFF], [0xED, 0xA0, 0x80], [0x01], [0x1F], [0xC3, 0xA9], [0x5C, 0x22], [0x5C, 0x5C], [0x7F],
                             [0x5C, 0x73], [0x5C, 0x78], [0x5C, 0x30]] {
            for offset in 0..<20 {
                let key = Data(repeating: UInt8(ascii: "k"), count: offset) + Data(bad) + Data("tail-of-a-long-key".utf8)
                for data in [Data(#"{"log": {""#.utf8) + key + Data(#"": 1, "entries": [], "version": "1.2"}}"#.utf8),
                             Data(#"{""#.utf8) + key + Data(#"": 1, "log": {"entries": []}}"#.utf8)] {
                    let expected = Self.wholeDocument(data).failure?.code
                    for chunkSize in [1, 7, 1 << 20] {
                        #expect(Self.streamed(data, chunkSize: chunkSize).failure?.code == expected, "\(bad) at \(offset)")
                    }
                }
            }
        }
    }

    @Test("a file cut inside a literal, an escape or a string says where the file ends", arguments: [
        #"{"log": {"entries": [tr"#, #"{"log": {"entries": ["\u00"#, #"{"log": {"entries": ["\"#, #"{"log": {"entri"#, "{",
    ])
    func cutShort(_ text: String) {
        for chunkSize in [1, 1 << 20] {
            let error = try? #require(throws: HARImportError.self) { try Self.streamed(Data(text.utf8), chunkSize: chunkSize).get() }
            #expect(error?.code == .truncated)
            #expect(error?.description == "the file is truncated: the JSON ends at byte \(text.utf8.count) before it is complete")
        }
    }

    @Test("nesting deeper than JSONDecoder's 512 levels is refused at the byte that goes too deep")
    func depthLimit() throws {
        func har(depth: Int) -> Data {
            // The root, log and entries arrays are 3 levels; the entry's own object and the padding make the rest.
            let open = String(repeating: "[", count: depth - 4), close = String(repeating: "]", count: depth - 4)
            return Data(#"{"log": {"entries": [{"startedDateTime": "2024-03-10T10:00:00Z", "request": {"url": "u"}, "_x": \#(open)\#(close)}]}}"#.utf8)
        }
        #expect(try Self.streamed(har(depth: 512)).get().count == 1)
        #expect(try Self.wholeDocument(har(depth: 512)).get().count == 1)
        let error = try #require(throws: HARImportError.self) { try Self.streamed(har(depth: 513)).get() }
        #expect(error.code == .malformedJSON)
        #expect(error.description.hasSuffix("too many nested arrays or dictionaries"))
        #expect(throws: HARImportError.self) { try Self.wholeDocument(har(depth: 513)).get() }
    }

    @Test("a UTF-16 file is read as one document, as before")
    func utf16() throws {
        let text = String(decoding: Self.har([Self.entry()]), as: UTF8.self)
        let data = Data([0xFF, 0xFE]) + text.data(using: .utf16LittleEndian)!
        #expect(try HARImporter().exchanges(from: data).count == 1)
    }

    /// The exchanges of a store, by sequence.
    static func ids(in store: SQLiteTraceStore) throws -> [UUID] {
        try store.summaries(after: .min, limit: .max).map(\.id)
    }

    @Test("a file truncated inside an entry is refused before the store is opened; the store is left as it was")
    func truncatedMidEntry() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let whole = try HARExporter().data(for: HARStreamFixtures.exchanges(count: 30, seed: 31))
        let cut = whole.prefix(whole.count * 2 / 3)
        let file = URL(fileURLWithPath: folder.file("cut.har"))
        try cut.write(to: file)
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"), bounds: nil)
        try store.write(HARFixtures.exchanges)
        let before = try Self.ids(in: store)
        let error = try #require(throws: HARImportError.self) { try Self.importer().importFile(at: file, into: store) }
        #expect(error.code == .truncated)
        #expect(error.description == "the file is truncated: the JSON ends at byte \(cut.count) before it is complete")
        #expect(try Self.ids(in: store) == before)
        #expect(throws: HARImportError.self) { try HARImporter().check(contentsOf: file) }
    }

    @Test("an entry refused after others were written rolls them all back: an import is all or nothing")
    func allOrNothing() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // More than two of the batches the parsing thread hands to the inserting one come before the bad entry.
        let count = 2 * HARImporter.batchCount + 88
        let good = (0..<count).map { Self.entry(url: "https://a.test/\($0)") }
        let bad = #"{"startedDateTime": "10/03/2024", "request": {"url": "https://a.test/bad"}}"#
        let file = URL(fileURLWithPath: folder.file("bad-late.har"))
        try Self.har(good + [bad] + good).write(to: file)
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"), bounds: nil)
        try store.write(HARFixtures.exchanges)
        let before = try Self.ids(in: store)
        // The file's JSON and log are fine, so only reading the entries finds the bad one, after the others were written.
        #expect(try HARImporter().check(contentsOf: file) == 2 * count + 1)
        let error = try #require(throws: HARImportError.self) { try Self.importer().importFile(at: file, into: store) }
        #expect(error.description == "log.entries[\(count)].startedDateTime: not an ISO 8601 date: \"10/03/2024\"")
        #expect(try Self.ids(in: store) == before)
        // A good file then imports whole, in file order, after what was there.
        try Self.har(good).write(to: file)
        #expect(try Self.importer().importFile(at: file, into: store) == count)
        let urls = try store.summaries(after: .min, limit: .max).map(\.url)
        #expect(Array(urls.suffix(count)) == (0..<count).map { "https://a.test/\($0)" })
    }

    @Test("an import into a store that refuses the write throws the store's error and leaves the file alone")
    func storeRefusesTheWrite() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = URL(fileURLWithPath: folder.file("many.har"))
        try Self.har((0..<(4 * HARImporter.batchCount)).map { Self.entry(url: "https://a.test/\($0)") }).write(to: file)
        let path = folder.file("traces.sqlite")
        try SQLiteTraceStore(path: path, bounds: nil).close()
        let store = try SQLiteTraceStore(path: path, readOnly: true, bounds: nil)
        defer { try? store.close() }
        #expect(throws: TraceStoreError.self) { try Self.importer().importFile(at: file, into: store) }
        #expect(try store.count() == 0)
    }

    @Test("20,000 entries are read holding one entry at a time: the window does not grow with the file")
    func constantMemory() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("big.har")
        try HARStreamFixtures.writeBrowserHAR(count: 20_000, to: path)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size > 20_000 * 1_300)
        let largestEntry = (0..<20_000).map { HARStreamFixtures.browserEntry($0).utf8.count }.max() ?? 0
        let chunkSize = 64 * 1024
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var reader = HARStreamReader(.file(handle), chunkSize: chunkSize)
        var count = 0
        var largestHanded = 0
        var inOrder = true
        let total = try reader.read { bytes, index in
            inOrder = inOrder && index == count
            count += 1
            largestHanded = max(largestHanded, bytes.count)
        }
        #expect(total == 20_000 && inOrder)
        #expect(count == 20_000)
        #expect(largestHanded == largestEntry)
        // The window holds the unread part of a chunk and at most the entry being read.
        #expect(reader.peakBufferSize <= chunkSize + largestEntry + 16)

        // The whole import stores every entry, one transaction, the exchanges handed over one by one.
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"), bounds: nil)
        #expect(try HARImporter().importFile(at: URL(fileURLWithPath: path), into: store) == 20_000)
        #expect(try store.count() == 20_000)
    }
}
