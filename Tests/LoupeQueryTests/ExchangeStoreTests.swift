import Foundation
import GRDB
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

@Suite("Exchanges: marks, older stores and change markers")
struct ExchangeStoreTests {
    static func exchanges(_ count: Int, start: Int = 0) -> [TraceExchange] {
        (start..<(start + count)).map { (index: Int) -> TraceExchange in
            let started = Date(timeIntervalSince1970: 1_700_000_000 + Double(index % 13))
            let ended: Date? = index % 4 == 0 ? nil : started.addingTimeInterval(1)
            let status: Int? = index % 6 == 0 ? nil : 200 + index % 3
            let body: TraceBody? = index % 3 == 0 ? nil : TraceBody(data: Data(), size: index % 11, isTruncated: false)
            return TraceExchange(
                id: UUID(), operation: "op\(index % 7)", method: "GET", url: "https://h\(index % 5).test/?token=t\(index)",
                startedAt: started, endedAt: ended, outcome: .success, status: status, responseBody: body)
        }
    }

    @Test("thousands of marks are one bound JSON array, and select exactly the marked rows")
    func manyMarks() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTraceStore(path: folder.file("marks.sqlite"), bounds: nil)
        let written = Self.exchanges(12_000)
        try store.write(written)
        // 6,000 marks, a few of them of exchanges that were never stored.
        let marks = Set(written.enumerated().filter { $0.offset % 2 == 1 }.map(\.element.id) + (0..<5).map { _ in UUID() })
        let sql = ExchangeSQL(ExchangeQuery(ids: marks))
        #expect(sql.condition.sql.filter { $0 == "?" }.count == 1)
        for order in [ExchangeOrder(.size), ExchangeOrder(.time, descending: true)] {
            let query = ExchangeQuery(order: order, ids: marks)
            #expect(try store.exchangeCount(query) == 6_000)
            let page = try store.exchangePage(query, from: .first, limit: 6_500)
            #expect(page.count == 6_000 && page.allSatisfy { marks.contains($0.id) })
            #expect(zip(page, page.dropFirst()).allSatisfy { order.precedes($0, $1) })
            #expect(try store.exchangeRank(query, of: page[4_321]) == 4_321)
        }
        #expect(try store.exchangeCount(ExchangeQuery(ids: [])) == 0)
        try store.close()
    }

    @Test("a v4 store (no size index) opened read-only sorts by size correctly, and is left as it was")
    func v4StoreReadOnly() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("v4.sqlite")
        let store = try SQLiteTraceStore(path: path, bounds: nil)
        try store.write(Self.exchanges(300))
        try store.close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: """
                DROP INDEX exchange_response_body_size; DELETE FROM grdb_migrations WHERE identifier = 'v5';
                PRAGMA user_version = 4;
                """)
        }
        try queue.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        let memory = InMemoryTraceStore()
        try memory.write(Self.exchanges(300))
        for order in [ExchangeOrder(.size), ExchangeOrder(.size, descending: true)] {
            let query = ExchangeQuery(order: order)
            let hint = try reader.pool.read { db in try reader.exchangeWalk(query, from: .first, in: db).sql.indexHint }
            #expect(hint == "")
            var walked: [TraceSummary] = [], page = try reader.exchangePage(query, from: .last, limit: 17)
            while let first = page.first {
                walked = page + walked
                page = try reader.exchangePage(query, from: .before(first), limit: 17)
            }
            #expect(walked.count == 300)
            #expect(walked.map(\.responseBodySize) == (try memory.exchangePage(query, from: .first, limit: 300)).map(\.responseBodySize))
            #expect(zip(walked, walked.dropFirst()).allSatisfy { order.precedes($0, $1) })
        }
        try reader.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let check = try DatabaseQueue(path: path)
        #expect(try check.read { try Int.fetchOne($0, sql: "PRAGMA user_version") } == 4)
        try check.close()
    }

    @Test("the change marker moves on writes, prunes and rewrites in place by another connection, and only then")
    func sqliteChangeMarker() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("marker.sqlite")
        let writer = try SQLiteTraceStore(path: path, bounds: nil)
        try writer.write(Self.exchanges(20))
        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        let first = try reader.changeMarker()
        #expect(first.maxSequence == 20 && first.minSequence == 1)
        // Reads on the reader's other connections do not move it.
        for _ in 0..<3 { _ = try reader.exchangePage(ExchangeQuery(), from: .first, limit: 5) }
        #expect(try reader.changeMarker() == first)

        try writer.write(Self.exchanges(1, start: 20))
        let written = try reader.changeMarker()
        #expect(written.maxSequence == 21 && written != first)

        _ = try writer.prune(TraceStoreBounds(maxCount: 15, maxBytes: nil, maxAge: nil))
        let pruned = try reader.changeMarker()
        #expect(pruned.minSequence == 7 && pruned != written)

        let writerBefore = try writer.changeMarker()
        let result = try writer.redactStored(with: RedactionPolicy(queryItemNames: ["token"]))
        #expect(result.changed == 15)
        let redacted = try reader.changeMarker()
        #expect(redacted.maxSequence == pruned.maxSequence && redacted.minSequence == pruned.minSequence)
        #expect(redacted != pruned)
        // The writer sees its own rewrite too.
        #expect(try writer.changeMarker() != writerBefore)
        #expect(try reader.changeMarker() == redacted)
        try reader.close()
        try writer.close()
    }

    @Test("the in-memory marker moves on writes and prunes")
    func memoryChangeMarker() throws {
        let store = InMemoryTraceStore()
        let empty = try store.changeMarker()
        #expect(empty.maxSequence == nil && empty.minSequence == nil)
        try store.write(Self.exchanges(10))
        let written = try store.changeMarker()
        #expect(written.maxSequence == 10 && written.minSequence == 1 && written != empty)
        #expect(try store.changeMarker() == written)
        _ = try store.prune(TraceStoreBounds(maxCount: 4, maxBytes: nil, maxAge: nil))
        #expect(try store.changeMarker().minSequence == 7)
        let basic = BasicStore()
        try basic.write(Self.exchanges(3))
        #expect(try basic.changeMarker() == StoreChangeMarker(maxSequence: 3, minSequence: 1, version: 3))
    }
}
