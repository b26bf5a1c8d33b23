import Foundation
import GRDB
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeFilter
@testable import LoupeFormats
@testable import LoupeReplay
import Testing
@testable import LoupeTestSupport

@Suite("HAR streaming export")
struct HARStreamExportTests {
    /// The bytes of a streamed export of `exchanges`.
    static func streamed(_ exchanges: [TraceExchange]) throws -> Data {
        try HARExporter().data(for: exchanges)
    }

    @Test("the streamed file is byte for byte what one JSONEncoder over the whole document gave")
    func sameBytesAsWholeDocument() throws {
        #expect(try Self.streamed(HARFixtures.exchanges) == HARStreamFixtures.wholeDocument(HARFixtures.exchanges))
        let varied = HARStreamFixtures.exchanges(count: 400)
        let streamed = try Self.streamed(varied)
        let whole = try HARStreamFixtures.wholeDocument(varied)
        #expect(streamed == whole)
        if streamed != whole, let at = zip(streamed, whole).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("first difference at byte \(at): \(String(decoding: streamed[max(0, at - 80)..<min(streamed.count, at + 80)], as: UTF8.self))")
        }
        // The empty export keeps the writer's own layout for an empty list.
        #expect(String(decoding: try Self.streamed([]), as: UTF8.self).contains("\"entries\" : [\n    ],"))
    }

    @Test("strings, numbers and maps are written as JSONEncoder writes them")
    func valuesMatchJSONEncoder() throws {
        struct Values: Encodable {
            var text: String
            var number: Double
            var map: [String: String]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var random = HARStreamFixtures.Random(state: 99)
        for round in 0..<2000 {
            // Any scalar (control characters, every plane), any finite double (from its bits), awkward keys.
            let scalars = (0..<random.below(12)).compactMap { _ in
                Unicode.Scalar(UInt32(random.chance(50) ? random.below(0x80) : random.below(0x11_0000)))
            }
            let text = String(String.UnicodeScalarView(scalars))
            var number = Double(bitPattern: random.next())
            if !number.isFinite { number = Double(round) / 7 }
            let values = Values(text: text, number: round % 3 == 0 ? Double(random.below(100_000)) : number,
                                map: random.strings().merging([text: text]) { first, _ in first })
            var json = PrettyJSON()
            try json.object { json in
                json.member("map", values.map)
                try json.member("number", values.number)
                json.member("text", values.text)
            }
            let expected = try encoder.encode(values)
            #expect(Data(json.bytes) == expected, "\(values)")
        }
    }

    @Test("whole and fractional numbers at the edges are written as JSONEncoder writes them")
    func numberEdges() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let doubles: [Double] = [0, -0.0, -1, 1, 9, 10, -10, 0.5, -0.001, 123.456, 999_999_999_999_999,
                                 1e15, -1e15, 1e16, 4_294_967_296, 2.5e-7, .greatestFiniteMagnitude, .leastNonzeroMagnitude]
        let ints = [0, 9, 10, -1, -9, -10, 1_234_567, .max, .min]
        var json = PrettyJSON()
        try json.array { json in
            for value in doubles {
                json.element()
                try json.double(value)
            }
            for value in ints {
                json.element()
                json.int(value)
            }
        }
        let expected = try encoder.encode(doubles.map(JSONNumber.double) + ints.map(JSONNumber.int))
        #expect(String(decoding: json.bytes, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
    }

    @Test("a number JSONEncoder refuses is refused too")
    func notFinite() {
        var json = PrettyJSON()
        #expect(throws: PrettyJSON.InvalidValue.self) { try json.double(.infinity) }
        #expect(throws: PrettyJSON.InvalidValue.self) { try json.double(.nan) }
    }

    /// A store holding `exchanges`, and rows edited by hand the way a damaged or foreign writer might leave them.
    static func store(with exchanges: [TraceExchange], in folder: TemporaryFolder) throws -> SQLiteTraceStore {
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"), bounds: nil)
        try store.write(exchanges)
        try store.pool.write { db in
            // Header JSON with escapes, spaces and another key order; notes that are not an object; attributes
            // with a `\u` escape; a status stored as REAL and a size as text.
            try db.execute(sql: #"UPDATE exchange SET request_headers = ' [ {"value" : "a\u00e9\"]", "name":"X-A"} ] ' WHERE sequence = 2"#)
            try db.execute(sql: #"UPDATE exchange SET response_headers = '[{"name":"A","value":"b","extra":1}]', status = 200.0 WHERE sequence = 3"#)
            try db.execute(sql: "UPDATE exchange SET request_body_size = 'x' WHERE sequence = 4")
            try db.execute(sql: #"UPDATE attempt SET notes = '[1]' WHERE rowid = (SELECT MIN(rowid) FROM attempt)"#)
            try db.execute(sql: #"UPDATE attempt SET notes = '{"k":"\ud83d\ude00","k2":"v",}' WHERE rowid = (SELECT MAX(rowid) FROM attempt)"#)
            try db.execute(sql: #"UPDATE event SET attributes = '{"a":"\u0041\n"}' WHERE rowid = (SELECT MIN(rowid) FROM event)"#)
        }
        return store
    }

    /// Every exchange read in batches by `forEachBatch`.
    static func batched(_ store: SQLiteTraceStore, filter: TraceFilter? = nil, batchSize: Int, byteBudget: Int) throws
        -> [TraceExchange] {
        var all: [TraceExchange] = []
        try store.forEachBatch(matching: filter, batchSize: batchSize, byteBudget: byteBudget) { batch in
            #expect(!batch.isEmpty && batch.count <= batchSize)
            all += batch
        }
        return all
    }

    @Test("reading in batches gives exactly what reading one exchange at a time gave, in any batch size",
          arguments: [(500, 8 << 20), (7, 8 << 20), (3, 1)])
    func batchesMatchSingleReads(batchSize: Int, byteBudget: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try Self.store(with: HARStreamFixtures.exchanges(count: 120, seed: 3), in: folder)
        let one = try store.exchanges(matching: nil, limit: .max)
        let batched = try Self.batched(store, batchSize: batchSize, byteBudget: byteBudget)
        #expect(batched.count == 120)
        #expect(batched == one)
        #expect(try Self.streamed(batched) == HARStreamFixtures.wholeDocument(one))
    }

    @Test("batches and the cursor keep a linked exchange's source (a listener's store exports one app per source)")
    func batchesKeepTheSource() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var exchanges = HARStreamFixtures.exchanges(count: 30, seed: 5)
        for index in stride(from: 0, to: 30, by: 4) {
            exchanges[index].source = TraceSource(app: "app-\(index % 3)", host: "host", pid: index)
        }
        let store = try Self.store(with: exchanges, in: folder)
        let one = try store.exchanges(matching: nil, limit: .max)
        #expect(one.filter { $0.source != nil }.count == 8)
        #expect(try Self.batched(store, batchSize: 7, byteBudget: 8 << 20) == one)
        var cursor = try store.batchCursor(matching: nil, batchSize: 7)
        var read: [TraceExchange] = []
        while case let batch = try cursor.next(), !batch.isEmpty { read += batch }
        #expect(read == one)
        var filtered = try store.batchCursor(matching: try TraceFilter.parse("~m GET"), batchSize: 3)
        var gets: [TraceExchange] = []
        while case let batch = try filtered.next(), !batch.isEmpty { gets += batch }
        #expect(gets == one.filter { $0.method == "GET" })
    }

    @Test("a filtered export reads the matching exchanges only, in order, whatever the batch size")
    func filtered() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try Self.store(with: HARStreamFixtures.exchanges(count: 150, seed: 5), in: folder)
        for text in ["~m POST", "~c 503 | ~m DELETE", "~u 127.0.0.1", "~m NOTHING"] {
            let filter = try TraceFilter.parse(text)
            let expected = try store.exchanges(matching: filter, limit: .max)
            #expect(try Self.batched(store, filter: filter, batchSize: 4, byteBudget: 8 << 20) == expected, "\(text)")
        }
    }

    @Test("exchanges recorded during an export are not in it; exchanges pruned during it are passed over")
    func storeChangingUnderneath() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try Self.store(with: HARStreamFixtures.exchanges(count: 40, seed: 11), in: folder)
        var seen: [Int64] = []
        try store.forEachBatch(matching: try TraceFilter.parse("~m GET | ~m POST | ~m PUT"), batchSize: 5) { batch in
            if seen.isEmpty {
                try store.write(HARStreamFixtures.exchanges(count: 10, seed: 12))
                try store.pool.write { db in try db.execute(sql: "DELETE FROM exchange WHERE sequence BETWEEN 20 AND 30") }
            }
            seen += batch.compactMap(\.sequence)
        }
        #expect(!seen.isEmpty && seen == seen.sorted())
        #expect(seen.allSatisfy { $0 <= 40 && !(20...30).contains($0) })
        #expect(seen.contains { $0 > 30 })
    }

    @Test("a store from before attempt notes (schema v1, opened read-only) exports in batches")
    func oldSchema() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("old.sqlite")
        try Fixture.makeV1Store(at: path)
        let store = try SQLiteTraceStore(path: path, readOnly: true)
        let batched = try Self.batched(store, batchSize: 10, byteBudget: 1 << 20)
        #expect(batched.count == 1 && batched[0].attempts.count == 1 && batched[0].events.count == 1)
        #expect(batched == [try #require(try store.exchange(id: batched[0].id))])
    }

    @Test("stored JSON reads as JSONDecoder reads it, fast path or not")
    func storedJSON() throws {
        let decoder = JSONDecoder()
        for text in [#"[]"#, #"[{"name":"a","value":"b"}]"#, #" [ {"value":"\"\\\/\b\f\n\r\t","name":"é😀"} , {"name":"","value":""} ] "#,
                     #"[{"name":"a","value":"\u0041"}]"#, #"[{"name":"a","value":"b"},]"#, #"[{"name":"a"}]"#,
                     #"[{"name":"a","name":"c","value":"b"}]"#, #"[{"name":1,"value":"b"}]"#, "[{\"name\":\"a\u{1}\",\"value\":\"b\"}]",
                     #"[{"name":"a","value":"b"}] x"#, #"{"#, ""] {
            let expected = Result { try decoder.decode([TraceHeader].self, from: Data(text.utf8)) }
            let actual = Result { try StoredJSON.headers(text) }
            switch (expected, actual) {
            case (.success(let lhs), .success(let rhs)): #expect(lhs == rhs, "\(text)")
            case (.failure, .failure): break
            default: Issue.record("\(text): \(expected) vs \(actual)")
            }
        }
        for text in [#"{}"#, #"{"a":"b","c":"d"}"#, #"{"a":"\n","b":"\u00e9"}"#, #"{"a":"b","a":"c"}"#, #"{"a":1}"#, #"[]"#, #"{"a":"b",}"#] {
            let expected = try? decoder.decode([String: String].self, from: Data(text.utf8))
            #expect(StoredJSON.notes(text) == (expected ?? [:]), "\(text)")
            #expect((try? StoredJSON.attributes(text)) == expected, "\(text)")
        }
        #expect(try StoredJSON.headers(nil) == [] && StoredJSON.notes(nil) == [:] && StoredJSON.attributes(nil) == [:])
    }
}
