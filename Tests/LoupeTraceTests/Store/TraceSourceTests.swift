import Foundation
import GRDB
import Loupe
import LoupeFilter
@testable import LoupeQuery
import Testing
@testable import LoupeTrace
import LoupeFormats
@testable import LoupeTestSupport

/// A linked exchange keeps the app that sent it: in the SQLite store (schema v6; older stores still open), in HAR's
/// `_loupe`, and through `~src`.
@Suite struct TraceSourceTests {
    static let source = TraceSource(app: "checkout-service", host: "build-01", pid: 4242)

    static func exchange(source: TraceSource?, number: Int = 1) -> TraceExchange {
        TraceExchange(
            id: UUID(), operation: "op", method: "GET", url: "https://a.test/\(number)",
            startedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(number)),
            endedAt: Date(timeIntervalSince1970: 1_700_000_001 + Double(number)), outcome: .success, status: 200,
            source: source)
    }

    @Test func theStoreKeepsTheSourceAndFiltersOnIt() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"))
        let linked = Self.exchange(source: Self.source, number: 1)
        let local = Self.exchange(source: nil, number: 2)
        try store.write([linked, local])
        #expect(try store.exchange(id: linked.id)?.source == Self.source)
        #expect(try store.exchange(id: local.id)?.source == nil)
        let filter = try TraceFilter.parse("~src CHECKOUT")
        #expect(try store.summaries(matching: filter, limit: 10).map(\.id) == [linked.id])
        #expect(try store.summaries(matching: TraceFilter.parse("!~src checkout"), limit: 10).map(\.id) == [local.id])
        #expect(filter.matches(linked) && !filter.matches(local), "in memory as in SQL")
        #expect(filter.matches(linked.summary) == nil, "a summary has no source")
        #expect(TraceFilterPrinter.text(filter) == "~src checkout")
        let inMemory = InMemoryTraceStore()
        try inMemory.write([linked, local])
        #expect(try inMemory.summaries(matching: filter, limit: 10).map(\.id) == [linked.id])
    }

    @Test func summariesCarryTheSourceAppAndAHandEditedSourceNeitherMatchesNorFails() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"))
        let linked = Self.exchange(source: Self.source, number: 1)
        let broken = Self.exchange(source: Self.source, number: 2)
        try store.write([linked, Self.exchange(source: nil, number: 3), broken])
        #expect(try store.recent(limit: 10).map(\.sourceApp) == ["checkout-service", nil, "checkout-service"])
        // The list's order is by start: 1, 2, 3.
        #expect(try store.exchangePage(ExchangeQuery(), from: .first, limit: 10).map(\.sourceApp)
            == ["checkout-service", "checkout-service", nil])
        // A hand-edited row: not JSON. json_extract alone would raise "malformed JSON" and fail the whole query.
        try store.pool.write { db in
            try db.execute(sql: "UPDATE exchange SET source = 'not json {' WHERE id = ?", arguments: [StoredUUID.text(of: broken.id)])
        }
        let filter = try TraceFilter.parse("~src checkout")
        #expect(try store.summaries(matching: filter, limit: 10).map(\.id) == [linked.id])
        #expect(try store.exchangePage(ExchangeQuery(filter: filter), from: .first, limit: 10).map(\.id) == [linked.id])
        #expect(try store.recent(limit: 10).map(\.sourceApp) == ["checkout-service", nil, nil])
    }

    @Test func aV5StoreOpensReadOnlyWithoutSourcesAndIsUpgradedByAWriter() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try StoreFixtures.oldStore(at: path, upTo: "v5")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        let old = try #require(try reader.exchange(id: UUID(uuidString: "0F000000-0000-4000-8000-000000000001")!))
        #expect(old.source == nil)
        try reader.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "a viewer never migrates")
        let writer = try SQLiteTraceStore(path: path)
        let linked = Self.exchange(source: Self.source)
        try writer.write([linked])
        #expect(try writer.exchange(id: linked.id)?.source == Self.source)
        #expect(try writer.pool.read { try Int.fetchOne($0, sql: "PRAGMA user_version") } == SQLiteSchema.version)
    }

    @Test func harCarriesTheSourceInLoupesField() throws {
        let exchanges = [Self.exchange(source: Self.source), Self.exchange(source: nil, number: 2)]
        let data = try HARExporter().data(for: exchanges)
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entries = try #require((document["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let fields = entries.map { ($0["_loupe"] as? [String: Any])?["source"] as? [String: Any] }
        #expect(fields[0]?["app"] as? String == "checkout-service" && fields[0]?["host"] as? String == "build-01"
            && fields[0]?["pid"] as? Int == 4242)
        #expect(fields[1] == nil, "no source, no field")
        #expect(data == (try HARStreamFixtures.wholeDocument(exchanges)),
                "the streamed writer writes what JSONEncoder writes")
        let imported = try HARImporter().exchanges(from: data)
        #expect(imported.map(\.source) == [Self.source, nil])
        #expect(try HARExporter().data(for: imported) == data, "round trip")
    }
}
