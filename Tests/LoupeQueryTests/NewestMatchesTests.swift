import Foundation
import GRDB
@testable import LoupeQuery
@_spi(Synthetic) @testable import LoupeTrace
@testable import LoupeFilter
import Testing
@testable import LoupeTestSupport

/// `summaries(matching:limit:)`, what `loupe list --filter` and `loupe mcp`'s `list_exchanges` read: the newest
/// matches of a filter on an indexed column are found by walking the newest rows, not by sorting every match (on
/// 1,000,000 exchanges `~c 5xx` sorted 70,000 rows for 50), and the answer is the same as SQLite's own `ORDER BY`.
@Suite("Filtered lists: the newest matches")
struct NewestMatchesTests {
    static func store(count: Int) throws -> (SQLiteTraceStore, TemporaryFolder) {
        let folder = try TemporaryFolder()
        let path = folder.file("synthetic.sqlite")
        try SyntheticStore.create(at: path, count: count)
        return (try SQLiteTraceStore(path: path, readOnly: true), folder)
    }

    @Test("~c 5xx walks the newest rows on the primary key and sorts nothing")
    func statusRangeWalksTheNewestRows() throws {
        let (store, folder) = try Self.store(count: 2_000)
        defer { folder.remove() }
        let condition = SQLFilter(try TraceFilter.parse("~c 5xx"), indexed: false)
        try store.pool.read { db in
            try condition.withFunction(in: db) {
                let sql = SQLiteTraceStore.newestMatchesSQL(columns: store.summaryColumns(in: db), condition: condition.sql)
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: condition.arguments + [50])
                    .map { $0["detail"] as String? ?? "" }.joined(separator: "; ")
                #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
                #expect(!plan.contains("exchange_status"), "\(plan)")
            }
        }
    }

    @Test("the same rows as SQLite's ORDER BY, for common and rare filters (rarer than the window holds)",
          arguments: ["~c 5xx", "~c 500", "~m DELETE", "~c 429 & ~m PATCH", "~c 200 & ~d api.example.com", "~c 999"])
    func sameRowsAsTheSortedQuery(_ text: String) throws {
        let (store, folder) = try Self.store(count: SQLiteTraceStore.newestWindow + 10_000)
        defer { folder.remove() }
        let filter = try TraceFilter.parse(text)
        let condition = SQLFilter(filter, indexed: false)
        let expected: [Int64] = try store.pool.read { db in
            try condition.withFunction(in: db) {
                try Int64.fetchAll(db, sql: "SELECT sequence FROM exchange WHERE \(condition.sql) ORDER BY sequence DESC LIMIT 50",
                                   arguments: condition.arguments).reversed()
            }
        }
        #expect(try store.summaries(matching: filter, limit: 50).map(\.sequence) == expected)
    }
}
