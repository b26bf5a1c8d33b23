import Foundation
import GRDB
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// Schema v10's `before_rule` (issue 43, item 7): written only for an exchange a rule changed, read back equal, and
/// a v9 store (no such column) still opens read-only in a viewer, unchanged, and upgrades on a writable open.
@Suite struct BeforeRuleColumnTests {
    static let asked = TraceRequest(
        method: "POST", url: "http://api.test/orders", headers: [TraceHeader(name: "content-type", value: "application/json")],
        body: TraceBody(data: Data(#"{"quantity":1}"#.utf8), size: 14, isTruncated: false))

    static func exchange(_ number: Int, beforeRule: TraceRequest?) -> TraceExchange {
        TraceExchange(
            id: UUID(uuidString: "0F000000-0000-4000-8000-00000000000\(number)")!, operation: "createOrder", method: "POST",
            url: "http://127.0.0.1:9000/mapped/orders", startedAt: Date(timeIntervalSince1970: 1_000), outcome: .success,
            status: 201, requestBody: TraceBody(data: Data(#"{"quantity":42}"#.utf8), size: 15, isTruncated: false),
            beforeRule: beforeRule)
    }

    @Test func theColumnHoldsTheAppsRequestOnlyWhenARuleChangedIt() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"), bounds: nil)
        try store.write([Self.exchange(1, beforeRule: Self.asked), Self.exchange(2, beforeRule: nil)])
        let columns = try store.pool.read { try String?.fetchAll($0, sql: "SELECT before_rule FROM exchange ORDER BY sequence") }
        #expect(columns[1] == nil, "nothing more for an exchange nothing changed")
        #expect(columns[0]?.contains(#""url":"http:\/\/api.test\/orders""#) == true, "\(columns[0] ?? "NULL")")
        #expect(try store.exchange(id: Self.exchange(1, beforeRule: nil).id)?.beforeRule == Self.asked)
        #expect(try store.exchange(id: Self.exchange(2, beforeRule: nil).id)?.beforeRule == nil)
        try store.close()
    }

    @Test func aV9StoreOpensReadOnlyUnchangedAndUpgradesOnAWritableOpen() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        let pool = try DatabasePool(path: path)
        try SQLiteSchema.migrator.migrate(pool, upTo: "v9")
        try pool.write { db in
            try db.execute(sql: """
                INSERT INTO exchange (id, started_at, operation, method, url, host, path, status, outcome, attempt_count,
                    request_headers, response_headers)
                VALUES ('0F000000-0000-4000-8000-000000000009', 1000, 'listUsers', 'GET', 'https://a.test/users',
                    'a.test', '/users', 200, 'success', 0, '[]', '[]');
                """)
        }
        try pool.close()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        let old = try #require(try reader.exchanges(matching: nil, limit: 5).first)
        #expect(old.operation == "listUsers" && old.beforeRule == nil)
        try reader.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "a viewer changes nothing")

        let writer = try SQLiteTraceStore(path: path, bounds: nil)
        try writer.write([Self.exchange(1, beforeRule: Self.asked)])
        #expect(try writer.exchange(id: Self.exchange(1, beforeRule: nil).id)?.beforeRule == Self.asked)
        #expect(try writer.pool.read { try Int.fetchOne($0, sql: "PRAGMA user_version") } == SQLiteSchema.version)
        try writer.close()
    }
}
