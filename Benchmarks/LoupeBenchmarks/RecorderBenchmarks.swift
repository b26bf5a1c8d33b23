import Benchmark
import Foundation
import GRDB
import Loupe
import LoupeTrace
import Synchronization

/// How fast exchanges get into SQLite, against what GRDB does with the same rows and nothing in between.
///
/// One op = one exchange; each iteration writes 1,000 as two transactions of 500 (the recorder's default batch),
/// so wall time is per exchange and throughput is exchanges per second. Every exchange gets a fresh id from
/// `ExchangeID.make()` (time-ordered UUIDv7, as the client makes them), so the store's replace-by-id path finds
/// nothing to delete, as in normal recording, and the `UNIQUE` id index grows at its end as in production. Each
/// benchmark has its own file, which grows over the run (up to 200k exchanges); the baseline and the store grow
/// alike. The baseline's connections get the same pragmas the store sets (`synchronous = NORMAL`, a 32 MiB page
/// cache), so the ratio compares Loupe's work with GRDB's, not two configurations.
func registerRecorderBenchmarks() {
    let batchSize = 500

    // 5. The baseline: a WAL `DatabasePool` on a file whose schema Loupe itself created (so the two never drift
    //    apart), one exchange row and one attempt row per exchange, cached prepared statements, every value ready
    //    except the id and timestamps. What is left between this and 6 is Loupe's own per-exchange work.
    let raw = Holder<(folder: URL, pool: DatabasePool, rows: RawRows)>()
    Benchmark("SQLite raw batched GRDB insert") { benchmark in
        guard let (_, pool, rows) = raw.value else { return benchmark.error("no setup") }
        insertRaw(benchmark, into: pool, rows: rows, batchSize: batchSize)
    } setup: {
        let folder = try Fixtures.temporaryFolder()
        let path = folder.appendingPathComponent("raw.sqlite").path
        try SQLiteTraceStore(path: path).close()
        let pool = try DatabasePool(path: path, configuration: .likeTheStore)
        let rows = try pool.read { db in try RawRows(db) }
        raw.value = (folder, pool, rows)
    } teardown: {
        try? raw.value?.pool.close()
        Fixtures.remove(raw.value?.folder)
        raw.value = nil
    }

    // 5b. Context for 5: the same loop into a narrow table with no secondary index, i.e. what SQLite itself costs
    //     for a "small row" (the figure in shared/README.md). Not the ratio's denominator.
    let narrow = Holder<(folder: URL, pool: DatabasePool)>()
    Benchmark("SQLite raw batched GRDB insert (narrow row)") { benchmark in
        guard let (_, pool) = narrow.value else { return benchmark.error("no setup") }
        let total = benchmark.scaledIterations.count
        do {
            for _ in 0..<(total / batchSize) {
                try pool.write { db in
                    let insert = try db.cachedStatement(sql: "INSERT INTO row (id, at, name, status) VALUES (?, ?, ?, ?)")
                    let now = Date().timeIntervalSince1970
                    for _ in 0..<batchSize {
                        try insert.execute(arguments: [ExchangeID.make().uuidString, now, "GET /v1/ping", 200])
                    }
                }
            }
        } catch {
            benchmark.error("insert failed: \(error)")
        }
    } setup: {
        let folder = try Fixtures.temporaryFolder()
        let pool = try DatabasePool(path: folder.appendingPathComponent("narrow.sqlite").path, configuration: .likeTheStore)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE row (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, at REAL NOT NULL, name TEXT NOT NULL, status INTEGER)")
        }
        narrow.value = (folder, pool)
    } teardown: {
        try? narrow.value?.pool.close()
        Fixtures.remove(narrow.value?.folder)
        narrow.value = nil
    }

    // 5c. Context for 5: the same rows into Loupe's schema with its secondary indexes dropped (the `UNIQUE` id
    //     index stays), to show what the 12 indexes on `exchange` and `attempt` cost per exchange.
    let bare = Holder<(folder: URL, pool: DatabasePool, rows: RawRows)>()
    Benchmark("SQLite raw batched GRDB insert (no secondary indexes)") { benchmark in
        guard let (_, pool, rows) = bare.value else { return benchmark.error("no setup") }
        insertRaw(benchmark, into: pool, rows: rows, batchSize: batchSize)
    } setup: {
        let folder = try Fixtures.temporaryFolder()
        let path = folder.appendingPathComponent("bare.sqlite").path
        try SQLiteTraceStore(path: path).close()
        let pool = try DatabasePool(path: path, configuration: .likeTheStore)
        try pool.write { db in
            let indexes = try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master
                WHERE type = 'index' AND tbl_name IN ('exchange', 'attempt') AND sql IS NOT NULL
                """)
            for index in indexes { try db.execute(sql: "DROP INDEX \(index)") }
        }
        let rows = try pool.read { db in try RawRows(db) }
        bare.value = (folder, pool, rows)
    } teardown: {
        try? bare.value?.pool.close()
        Fixtures.remove(bare.value?.folder)
        bare.value = nil
    }

    // 5d. Context for 6: what the store's row building spends on JSON alone. One op = the two header lists of
    //     one sample exchange encoded as `RowWriter` does (Foundation `JSONEncoder`, sorted keys, unescaped
    //     slashes).
    let headers = Fixtures.sampleExchange()
    Benchmark("Recorder JSON-encode two header lists") { benchmark in
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for _ in benchmark.scaledIterations {
            blackHole(try? encoder.encode(headers.requestHeaders))
            blackHole(try? encoder.encode(headers.responseHeaders))
        }
    }

    // 6. The recorder's store: `SQLiteTraceStore.write` of ready `TraceExchange`s (what the background writer
    //    calls), 500 per call, with the store's default bounds (so its periodic auto-prune check is counted too).
    //    Only the ids and timestamps change between batches.
    ingestBenchmark("Recorder ingest SQLite", batchSize: batchSize) { ExchangeID.make() }

    // 6b. Context for 6: the same with random (v4-shaped) ids, as Loupe made them before UUIDv7, to show what a
    //     random key costs the `UNIQUE` index once the file is large.
    let random = Mutex(FastRandomIDs())
    ingestBenchmark("Recorder ingest SQLite (random v4 ids)", batchSize: batchSize) { random.withLock { $0.next() } }
}

private func ingestBenchmark(_ name: String, batchSize: Int, makeID: @escaping @Sendable () -> UUID) {
    let ingest = Holder<(folder: URL, store: SQLiteTraceStore, batch: [TraceExchange])>()
    Benchmark(name) { benchmark in
        guard let (_, store, template) = ingest.value else { return benchmark.error("no setup") }
        var batch = template
        let total = benchmark.scaledIterations.count
        do {
            for _ in 0..<(total / batchSize) {
                let now = Date()
                for index in batch.indices {
                    batch[index].id = makeID()
                    batch[index].startedAt = now
                }
                try store.write(batch)
            }
        } catch {
            benchmark.error("write failed: \(error)")
        }
    } setup: {
        let folder = try Fixtures.temporaryFolder()
        let store = try SQLiteTraceStore(path: folder.appendingPathComponent("traces.sqlite").path)
        ingest.value = (folder, store, (0..<batchSize).map { _ in Fixtures.sampleExchange() })
    } teardown: {
        try? ingest.value?.store.close()
        Fixtures.remove(ingest.value?.folder)
        ingest.value = nil
    }
}

extension Configuration {
    /// GRDB's defaults plus the pragmas `SQLiteTraceStore` sets on every connection (see its `prepareDatabase`).
    static var likeTheStore: Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32768")
        }
        return configuration
    }
}

/// The baseline's rows: the values Loupe's `RowWriter` binds for `Fixtures.sampleExchange`, computed once (JSON
/// header lists, host, path, sizes) instead of per row, and matched by name against the columns the store's schema
/// has today. A new column with a default is left to its default; one the baseline cannot fill stops the run.
struct RawRows {
    let exchange: RawInsert
    let attempt: RawInsert

    init(_ db: Database) throws {
        let sample = Fixtures.sampleExchange()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let requestHeaders = String(decoding: try encoder.encode(sample.requestHeaders), as: UTF8.self)
        let responseHeaders = String(decoding: try encoder.encode(sample.responseHeaders), as: UTF8.self)
        let body = sample.responseBody?.data ?? Data()
        exchange = try RawInsert(db, table: "exchange", key: "id", values: [
            "started_at": .now(0), "ended_at": .now(0.012), "duration": .fixed(0.012),
            "operation": .fixed(sample.operation), "method": .fixed(sample.method), "url": .fixed(sample.url),
            "host": .fixed("api.example.com"), "path": .fixed("/v1/ping"), "status": .fixed(200),
            "outcome": .fixed("success"), "error": .fixed(nil), "attempt_count": .fixed(1), "replay_of": .fixed(nil),
            "request_headers": .fixed(requestHeaders), "request_body": .fixed(nil), "request_body_size": .fixed(nil),
            "request_body_truncated": .fixed(nil), "response_headers": .fixed(responseHeaders),
            "response_body": .fixed(body), "response_body_size": .fixed(body.count),
            "response_body_truncated": .fixed(false), "stored_at": .now(0),
            "stored_bytes": .fixed(36 + sample.url.utf8.count + sample.operation.utf8.count + 3
                + requestHeaders.utf8.count + responseHeaders.utf8.count + body.count),
        ])
        attempt = try RawInsert(db, table: "attempt", key: "exchange_sequence", values: [
            "number": .fixed(1), "started_at": .now(0), "request_sent_at": .now(0.001), "first_byte_at": .now(0.010),
            "ended_at": .now(0.012), "status": .fixed(200), "error": .fixed(nil), "circuit_state": .fixed(nil),
            "retry_reason": .fixed(nil), "retry_delay": .fixed(nil),
        ])
    }
}

/// One prepared INSERT: its SQL, and the values in column order with a slot for the per-row key.
struct RawInsert {
    enum Value {
        case fixed((any DatabaseValueConvertible)?)
        /// Seconds since 1970, `offset` after the batch's start.
        case now(Double)
    }

    /// One batch's values: everything but the key is fixed for the batch.
    struct Batch {
        var values: [(any DatabaseValueConvertible)?]
        let keySlot: Int

        func arguments(key: some DatabaseValueConvertible) -> StatementArguments {
            var values = values
            values[keySlot] = key
            return StatementArguments(values)
        }
    }

    let sql: String
    private let columns: [(name: String, value: Value?)]

    init(_ db: Database, table: String, key: String, values: [String: Value]) throws {
        var columns: [(name: String, value: Value?)] = [(key, nil)]
        for column in try db.columns(in: table) where column.name != key && column.primaryKeyIndex == 0 {
            if let value = values[column.name] {
                columns.append((column.name, value))
            } else if column.isNotNull && column.defaultValueSQL == nil {
                throw BenchmarkSetupError(
                    "the store's \(table).\(column.name) is new to the raw baseline: add it to RawRows")
            }
        }
        self.columns = columns
        sql = "INSERT INTO \(table) (\(columns.map(\.name).joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
    }

    func values(now: Date) -> Batch {
        let seconds = now.timeIntervalSince1970
        return Batch(values: columns.map { column -> (any DatabaseValueConvertible)? in
            switch column.value {
            case .fixed(let value)?: return value
            case .now(let offset)?: return seconds + offset
            case nil: return nil
            }
        }, keySlot: 0)
    }
}

/// The raw baseline's loop: `rows` for every exchange of the iteration, one exchange and one attempt row each,
/// `batchSize` per transaction, through cached prepared statements.
func insertRaw(_ benchmark: Benchmark, into pool: DatabasePool, rows: RawRows, batchSize: Int) {
    do {
        for _ in 0..<(benchmark.scaledIterations.count / batchSize) {
            let exchange = rows.exchange.values(now: Date())
            let attempt = rows.attempt.values(now: Date())
            try pool.write { db in
                let insertExchange = try db.cachedStatement(sql: rows.exchange.sql)
                let insertAttempt = try db.cachedStatement(sql: rows.attempt.sql)
                for _ in 0..<batchSize {
                    try insertExchange.execute(arguments: exchange.arguments(key: ExchangeID.make().uuidString))
                    try insertAttempt.execute(arguments: attempt.arguments(key: db.lastInsertedRowID))
                }
            }
        }
    } catch {
        benchmark.error("insert failed: \(error)")
    }
}
