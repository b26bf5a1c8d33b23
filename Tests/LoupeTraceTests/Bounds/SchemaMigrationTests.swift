import Foundation
import GRDB
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeFilter
import Testing
@testable import LoupeTestSupport

@Suite("Schema upgrades")
struct SchemaMigrationTests {
    /// A store as the first Loupe wrote it: schema v1, one exchange with an attempt and an event.
    @Test("a v1 store is upgraded on a writable open: sizes and ages are filled in, and filters and pruning work")
    func upgrade() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try Fixture.makeV1Store(at: path)

        // Read-only opens of a v1 store still list and filter (the new indexes only make it faster), and leave it
        // as it was.
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        #expect(try reader.summaries(matching: TraceFilter.parse("~c 503 ~cb open ~h retry-after"), limit: 5).count == 1)
        try reader.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        let store = try SQLiteTraceStore(path: path, bounds: nil)
        let (version, storedAt, storedBytes) = try store.pool.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA user_version"),
             try Double.fetchOne(db, sql: "SELECT stored_at FROM exchange"),
             try Int.fetchOne(db, sql: "SELECT stored_bytes FROM exchange"))
        }
        #expect(version == SQLiteSchema.version && storedAt == 1001.5)
        // Allowance, id, URL, operation, method, header lists as JSON, body, attempt (breaker state), event texts.
        #expect(storedBytes == 200 + 36 + 30 + 9 + 3 + 2 + 36 + 2 + (40 + 4) + (40 + 7 + 15 + 2))
        #expect(try store.exchange(id: UUID(uuidString: "0F000000-0000-4000-8000-000000000001")!)?.attempts.count == 1)
        #expect(try storeStats(store, matching: nil).first?.breakerTransitions == 1)
        // Upgraded rows count as stored when they ended, so 15 days later a 14-day bound removes it.
        let result = try store.prune(.default, now: Date(timeIntervalSince1970: 1001.5 + 15 * 86_400))
        #expect(result.removedCount == 1 && result.reasons == [.age])
    }

    @Test("a v7 store is upgraded to v8: attempt counts are indexed for retried exchanges only, and ~att finds the same rows")
    func upgradeFromV7() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try Fixture.makeV1Store(at: path)
        do {
            let pool = try DatabasePool(path: path)
            try SQLiteSchema.migrator.migrate(pool, upTo: "v7")
            try pool.write { db in
                try db.execute(sql: """
                    INSERT INTO exchange (id, started_at, operation, method, url, host, path, outcome, attempt_count,
                        request_headers, response_headers)
                    VALUES ('0F000000-0000-4000-8000-000000000002', 1002, 'retried', 'GET', 'https://a.test/', 'a.test',
                        '/', 'success', 3, '[]', '[]');
                    """)
            }
            #expect(try pool.read { try Int.fetchOne($0, sql: "PRAGMA user_version") } == 7)
            try pool.close()
        }
        let retried = UUID(uuidString: "0F000000-0000-4000-8000-000000000002")!
        let once = UUID(uuidString: "0F000000-0000-4000-8000-000000000001")!
        let filters: [(String, [UUID])] = [
            ("~att >1", [retried]), ("~att >=3", [retried]), ("~att 3", [retried]), ("~att 1", [once]),
            ("~att <3", [once]), ("~att >0", [once, retried]), ("!~att >1", [once]),
        ]
        // A viewer reads the v7 store as it is, with the filter's v8 wording.
        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        for (text, ids) in filters {
            #expect(try reader.exchanges(matching: TraceFilter.parse(text), limit: 5).map(\.id) == ids, "v7 \(text)")
        }
        try reader.close()

        let store = try SQLiteTraceStore(path: path, bounds: nil)
        let (version, indexes) = try store.pool.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA user_version"),
             Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'exchange'")))
        }
        #expect(version == SQLiteSchema.version)
        #expect(indexes.contains("exchange_retried") && !indexes.contains("exchange_attempt_count"))
        // The rows written before the upgrade are in the new index: a page of `~att >1` reads it.
        try Self.expectAnswers(of: store, to: filters, limit: 5, version: "v8", plan: "~att >1", uses: "exchange_retried")
        try store.close()
    }

    /// Each filter's page and count on the upgraded `store` are `ids`, and a page of `plan` reads the index `uses`.
    static func expectAnswers(
        of store: SQLiteTraceStore, to filters: [(String, [UUID])], limit: Int, version: String, plan: String, uses index: String
    ) throws {
        for (text, ids) in filters {
            #expect(try store.exchanges(matching: TraceFilter.parse(text), limit: limit).map(\.id) == ids, "\(version) \(text)")
            let condition = SQLFilter(try TraceFilter.parse(text))
            let count = try store.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM exchange WHERE \(condition.sql)") }
            #expect(count == ids.count, "\(version) count \(text)")
        }
        let detail = try store.pool.read { db in
            try Row.fetchAll(db, sql: """
                EXPLAIN QUERY PLAN SELECT sequence FROM exchange
                WHERE \(SQLFilter(TraceFilter.parse(plan)).sql) ORDER BY sequence DESC LIMIT 50
                """).map { $0["detail"] as String }.joined(separator: "\n")
        }
        #expect(detail.contains(index), "\(detail)")
    }

    @Test("a v8 store is upgraded to v9: attempt_circuit holds only attempts whose breaker was not closed, ~cb finds the same rows, and old rows read back")
    func upgradeFromV8() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try Fixture.makeV1Store(at: path)  // exchange 1: one attempt, `open`
        do {
            let pool = try DatabasePool(path: path)
            try SQLiteSchema.migrator.migrate(pool, upTo: "v8")
            try pool.write { db in
                // 2: closed then half-open; 3: closed; 4: no breaker (NULL); 5: disabled; 6: short-circuited.
                for (sequence, outcome) in [(2, "success"), (3, "success"), (4, "success"), (5, "success"),
                                            (6, "shortCircuited")] {
                    try db.execute(sql: """
                        INSERT INTO exchange (id, started_at, operation, method, url, host, path, outcome, attempt_count,
                            request_headers, response_headers)
                        VALUES ('0F000000-0000-4000-8000-00000000000\(sequence)', \(1000 + sequence), 'op', 'GET',
                            'https://a.test/', 'a.test', '/', '\(outcome)', 1, '[]', '[]')
                        """)
                }
                try db.execute(sql: """
                    INSERT INTO attempt (exchange_sequence, number, started_at, circuit_state) VALUES
                        (2, 1, 1002, 'closed'), (2, 2, 1002, 'half-open'), (3, 1, 1003, 'closed'), (4, 1, 1004, NULL),
                        (5, 1, 1005, 'disabled');
                    """)
            }
            #expect(try pool.read { try Int.fetchOne($0, sql: "PRAGMA user_version") } == 8)
            try pool.close()
        }
        func id(_ sequence: Int) -> UUID { UUID(uuidString: "0F000000-0000-4000-8000-00000000000\(sequence)")! }
        let filters: [(String, [UUID])] = [
            ("~cb open", [id(1), id(6)]), ("~cb half-open", [id(2)]), ("~cb closed", [id(2), id(3)]),
            ("~cb disabled", [id(5)]), ("~cb forced-open", []), ("~cb short-circuited", [id(6)]),
            ("!~cb closed", [id(1), id(4), id(5), id(6)]), ("~cb half-open | ~cb disabled", [id(2), id(5)]),
        ]
        // A viewer reads the v8 store as it is, with the filter's v9 wording.
        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        let before = try (1...6).map { try #require(try reader.exchange(id: id($0))) }
        for (text, ids) in filters {
            #expect(try reader.exchanges(matching: TraceFilter.parse(text), limit: 10).map(\.id) == ids, "v8 \(text)")
        }
        try reader.close()

        let store = try SQLiteTraceStore(path: path, bounds: nil)
        let (version, definition, entries) = try store.pool.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA user_version"),
             try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'attempt_circuit'"),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM attempt INDEXED BY attempt_circuit WHERE circuit_state <> 'closed'"))
        }
        #expect(version == SQLiteSchema.version)
        #expect(definition?.contains("WHERE circuit_state <> 'closed'") == true, "\(definition ?? "no index")")
        #expect(entries == 3, "open, half-open and disabled: the attempts written before the upgrade are in it")
        #expect(try (1...6).map { try store.exchange(id: id($0)) } == before)
        // A page of `~cb open` reads the partial index.
        try Self.expectAnswers(of: store, to: filters, limit: 10, version: "v9", plan: "~cb open", uses: "attempt_circuit")
        try store.close()
    }

    @Test("a store migrated by a newer Loupe (an unknown v7 migration) is refused")
    func unknownMigration() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        do {
            let store = try SQLiteTraceStore(path: path)
            try store.pool.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v\(SQLiteSchema.version + 1)')") }
            try store.close()
        }
        let error = try #require(throws: TraceStoreError.self) { try SQLiteTraceStore(path: path) }
        #expect(error.code == .newerSchema)
        #expect(error.description.contains("reads up to \(SQLiteSchema.version)"))
    }
}
