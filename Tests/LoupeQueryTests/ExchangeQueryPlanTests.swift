import Foundation
import GRDB
@testable import LoupeQuery
@_spi(Synthetic) @testable import LoupeTrace
@testable import LoupeFilter
import Testing
@testable import LoupeTestSupport

/// Every page is read from an index, never sorted; counts and ranks count index ranges. Checked with
/// `EXPLAIN QUERY PLAN` on a synthetic store (the planner has no statistics, so its choices do not depend on
/// the number of rows), and pages of a dense filter against SQLite's own `ORDER BY`.
@Suite("Exchanges: query plans")
struct ExchangeQueryPlanTests {
    static let orders = ExchangeSortKey.allCases.flatMap { [ExchangeOrder($0), ExchangeOrder($0, descending: true)] }

    /// The plan's lines for `statement`.
    static func plan(_ statement: ExchangeSQL.Statement, in db: Database) throws -> [String] {
        try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: statement.arguments)
            .map { $0["detail"] as String? ?? "" }
    }

    /// Anchors on a row with each kind of key: absent, and present (in a large run of ties).
    static func anchors(_ store: SQLiteTraceStore, _ key: ExchangeSortKey) throws -> [ExchangeAnchor] {
        let rows = try store.summaries(after: 0, limit: 2_000)
        let absent = rows.first { ExchangeSQL(ExchangeQuery(order: ExchangeOrder(key))).value(of: $0).isNull } ?? rows[0]
        return [.first, .last] + [absent, rows[1_000]].flatMap { [ExchangeAnchor.after($0), .before($0), .at($0)] }
    }

    @Test("unfiltered pages from every anchor, in every order, read the sort key's index without sorting")
    func unfilteredPagesUseTheIndex() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("synthetic.sqlite")
        try SyntheticStore.create(at: path, count: 2_000)
        let store = try SQLiteTraceStore(path: path, readOnly: true)
        for order in Self.orders {
            for anchor in try Self.anchors(store, order.key) {
                try store.pool.read { db in
                    let walk = try store.exchangeWalk(ExchangeQuery(order: order), from: anchor, in: db)
                    for segment in walk.segments {
                        let plan = try Self.plan(walk.sql.page(segment, limit: 200), in: db).joined(separator: "; ")
                        #expect(!plan.contains("TEMP B-TREE"), "\(order) \(anchor): \(plan)")
                        #expect(plan.contains("INDEX \(order.key.indexName)"), "\(order) \(anchor): \(plan)")
                    }
                    if let row = anchor.summary {
                        let plan = try Self.plan(store.exchangeRankStatement(ExchangeQuery(order: order), of: row, in: db), in: db)
                        for line in plan where line.contains("exchange") {
                            #expect(line.hasPrefix("SEARCH") && line.contains("COVERING INDEX"), "rank \(order): \(line)")
                        }
                    }
                }
            }
        }
        try store.close()
    }

    @Test("a dense filter reads the sort key's index in order; a sparse one may sort its few matches")
    func filteredPages() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("synthetic.sqlite")
        try SyntheticStore.create(at: path, count: SQLiteTraceStore.denseMatches * 2)
        let store = try SQLiteTraceStore(path: path, readOnly: true)
        let dense = try TraceFilter.parse("~m GET"), sparse = try TraceFilter.parse("~m PATCH")
        for order in Self.orders {
            try store.pool.read { db in
                let walk = try store.exchangeWalk(ExchangeQuery(filter: dense, order: order), from: .first, in: db)
                #expect(walk.sql.indexHint == "INDEXED BY \(order.key.indexName)")
                for segment in walk.segments {
                    let plan = try Self.plan(walk.sql.page(segment, limit: 200), in: db).joined(separator: "; ")
                    #expect(!plan.contains("TEMP B-TREE"), "\(order): \(plan)")
                }
                #expect(try store.exchangeWalk(ExchangeQuery(filter: sparse, order: order), from: .first, in: db).sql.indexHint == "")
            }
        }
        try store.close()
    }

    @Test("pages through a dense filter (the forced index) return exactly SQLite's ORDER BY, in every order")
    func densePagesAreExact() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("synthetic.sqlite")
        try SyntheticStore.create(at: path, count: SQLiteTraceStore.denseMatches * 2)
        let store = try SQLiteTraceStore(path: path, readOnly: true)
        let filter = try TraceFilter.parse("~m GET")
        for order in Self.orders {
            let query = ExchangeQuery(filter: filter, order: order)
            let direction = order.descending ? "DESC" : "ASC"
            let truth = try store.pool.read { db in
                try Int64.fetchAll(db, sql: """
                    SELECT sequence FROM exchange WHERE method = 'GET'
                    ORDER BY \(order.key.column) \(direction), sequence \(direction)
                    """)
            }
            var walked: [Int64] = [], page = try store.exchangePage(query, from: .first, limit: 997)
            while let last = page.last {
                walked += page.map(\.sequence)
                page = try store.exchangePage(query, from: .after(last), limit: 997)
            }
            #expect(walked == truth, "\(order)")
            let middle = try store.exchangePage(query, from: .first, limit: 5_001)[5_000]
            #expect(try store.exchangeRank(query, of: middle) == 5_000, "\(order)")
        }
        try store.close()
    }
}
