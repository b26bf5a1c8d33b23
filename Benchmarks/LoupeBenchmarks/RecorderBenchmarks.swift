import Benchmark
import Foundation
import GRDB
import IngestBaseline
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
        let (pool, rows) = try IngestLoops.rawPool(at: folder.appendingPathComponent("raw.sqlite").path)
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
        do {
            try IngestLoops.store(store, template: template, count: benchmark.scaledIterations.count, makeID: makeID)
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

/// The raw baseline's loop, with a failure reported to the benchmark.
private func insertRaw(_ benchmark: Benchmark, into pool: DatabasePool, rows: RawRows, batchSize: Int) {
    do {
        try IngestLoops.raw(into: pool, rows: rows, count: benchmark.scaledIterations.count, batchSize: batchSize)
    } catch {
        benchmark.error("insert failed: \(error)")
    }
}
