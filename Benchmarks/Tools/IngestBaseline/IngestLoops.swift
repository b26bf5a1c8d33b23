import Foundation
import GRDB
import Loupe
import LoupeTrace

/// The two ingest loops the recorder's figures compare, shared by the package-benchmark group and
/// `ingest-budget`: the store's own `write` of ready exchanges, and GRDB inserting the same rows with nothing in
/// between. Both write `count` exchanges in transactions of `batchSize` (the recorder's default batch is 500).
package enum IngestLoops {
    /// `SQLiteTraceStore.write` of `template` over and over, each exchange with a fresh id from `makeID` and
    /// the batch's start time, as the background writer hands them over.
    package static func store(_ store: SQLiteTraceStore, template: [TraceExchange], count: Int,
                              makeID: () -> UUID = { ExchangeID.make() }) throws {
        var batch = template
        for _ in 0..<(count / template.count) {
            let now = Date()
            for index in batch.indices {
                batch[index].id = makeID()
                batch[index].startedAt = now
            }
            try store.write(batch)
        }
    }

    /// The raw baseline: `rows` for every exchange, one exchange and one attempt row each, `batchSize` per
    /// `pool.write`, through cached prepared statements.
    package static func raw(into pool: DatabasePool, rows: RawRows, count: Int, batchSize: Int) throws {
        for _ in 0..<(count / batchSize) {
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
    }

    /// Creates a store at `path` and drops the named secondary indexes of `exchange`, `attempt` and `event`
    /// (`["all"]`: every one made by `CREATE INDEX`; the `UNIQUE` id index stays), to measure what maintaining them
    /// costs both loops.
    /// With `unindexed`, the store's search index never indexes a row (its end mark is raised past any sequence).
    package static func createStore(at path: String, dropping indexes: [String], unindexed: Bool = false) throws {
        try SQLiteTraceStore.createIfMissing(path: path)
        guard !indexes.isEmpty || unindexed else { return }
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            if unindexed { try db.execute(sql: "UPDATE store_setting SET value = \(Int64.max) WHERE key = 'search_end'") }
            guard !indexes.isEmpty else { return }
            let names = indexes == ["all"] ? try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master
                WHERE type = 'index' AND tbl_name IN ('exchange', 'attempt', 'event') AND sql IS NOT NULL
                """) : indexes
            for name in names { try db.execute(sql: "DROP INDEX \(name)") }
        }
        try queue.close()
    }

    /// A WAL `DatabasePool` for the baseline on a new file at `path` whose schema `SQLiteTraceStore` itself
    /// created (so baseline and store never drift apart), with the rows to insert into it.
    package static func rawPool(at path: String, dropping indexes: [String] = []) throws -> (DatabasePool, RawRows) {
        try createStore(at: path, dropping: indexes)
        let pool = try DatabasePool(path: path, configuration: .likeTheStore)
        return (pool, try pool.read { db in try RawRows(db) })
    }
}

extension Configuration {
    /// GRDB's defaults plus the pragmas `SQLiteTraceStore` sets on every connection (see its `prepareDatabase`).
    package static var likeTheStore: Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32768")
        }
        return configuration
    }
}
