import Foundation
import GRDB

/// Keeps exchanges in one SQLite file (GRDB `DatabasePool`, WAL mode): the store the CLI and the inspector share.
///
/// WAL lets one process record while others read; every read sees the commits made before it began. The file
/// and its `-wal`/`-shm` companions are owner-only (0600). Opening a file that is not a Loupe store, or one
/// written by a newer Loupe, throws a ``TraceStoreError`` saying so.
///
/// A writable store keeps itself within its ``TraceStoreBounds`` (by default 256 MB and 14 days): it prunes
/// when it opens and after every `pruneEvery` exchanges written, on the caller of ``write(_:)`` (the recorder's
/// background writer), never on the request path.
///
/// ```swift
/// let store = try SQLiteTraceStore(path: StoreLocation.defaultPath())             // creates it if needed
/// let reader = try SQLiteTraceStore(path: path, readOnly: true)                    // never creates anything
/// ```
public final class SQLiteTraceStore: TraceStore {
    /// Where the database file is.
    public let path: String
    /// Whether this store was opened read-only.
    public let isReadOnly: Bool
    let pool: DatabasePool
    /// Tells when to prune automatically (writable stores with bounds only).
    let autoPruner: AutoPruner?
    /// The clock for `stored_at` and for the age bound.
    let now: @Sendable () -> Date

    /// Opens the store at `path`; a writable open creates the file and its folders (and migrates the schema),
    /// a read-only open requires an existing store and never writes.
    ///
    /// - Parameters:
    ///   - bounds: what a writable store keeps; `nil` never prunes by itself (``prune(_:now:dryRun:)`` still works).
    ///   - pruneEvery: exchanges written between automatic prunes.
    ///   - now: the clock that stamps writes and ages exchanges (inject one in tests).
    public init(path: String, readOnly: Bool = false, bounds: TraceStoreBounds? = .default, pruneEvery: Int = 10_000,
                now: @escaping @Sendable () -> Date = Date.init) throws {
        self.path = path
        self.isReadOnly = readOnly
        self.now = now
        self.autoPruner = readOnly ? nil : bounds.map { AutoPruner(bounds: $0, interval: pruneEvery) }
        if readOnly {
            try StoreFile.prepareForReading(path)
        } else {
            try StoreFile.prepareForWriting(path)
        }
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.label = "LoupeTrace"
        // Another process (the demo, `loupe send`) may be writing: wait for its lock rather than fail at once.
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            // In WAL mode NORMAL never corrupts the file; a power cut may lose the last commits, which for a flight
            // recorder beats paying an fsync per batch. A larger page cache keeps the indexes hot while ingesting.
            try db.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32768")
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try pool.read { db in try SQLiteSchema.check(db, path: path, requireSchema: readOnly) }
            if !readOnly {
                try SQLiteSchema.migrator.migrate(pool)
                StoreFile.restrictPermissions(path)
            }
        } catch {
            throw Self.storeError(error, path: path)
        }
        autoPrune()
    }

    /// The last automatic prune that removed something (for diagnostics).
    public var lastAutoPrune: PruneResult? { autoPruner?.lastResult }

    /// Closes the database connections; later calls throw.
    public func close() throws {
        try guarded { try pool.close() }
    }

    // MARK: TraceStore

    public func write(_ exchanges: [TraceExchange]) throws {
        guard !exchanges.isEmpty else { return }
        let storedAt = now()
        try guarded {
            try pool.write { db in
                let rows = RowWriter()
                let delete = try db.cachedStatement(sql: "DELETE FROM exchange WHERE id = ?")
                let insert = try db.cachedStatement(sql: RowWriter.insertExchange)
                let insertAttempt = try db.cachedStatement(sql: RowWriter.insertAttempt)
                let insertEvent = try db.cachedStatement(sql: RowWriter.insertEvent)
                for exchange in exchanges {
                    // Replacing deletes the old row (attempts and events cascade) so the new one gets a fresh
                    // sequence and live views see it again.
                    try delete.execute(arguments: [exchange.id.uuidString])
                    try insert.execute(arguments: rows.exchangeArguments(exchange, storedAt: storedAt))
                    let sequence = db.lastInsertedRowID
                    for attempt in exchange.attempts {
                        try insertAttempt.execute(arguments: rows.attemptArguments(attempt, sequence: sequence))
                    }
                    for event in exchange.events {
                        try insertEvent.execute(arguments: rows.eventArguments(event, sequence: sequence))
                    }
                }
            }
        }
        if autoPruner?.isDue(afterWriting: exchanges.count) == true { autoPrune() }
    }

    public func recent(limit: Int) throws -> [TraceSummary] {
        try guarded {
            try pool.read { db in
                let sql = "SELECT \(RowReader.summaryColumns) FROM exchange ORDER BY sequence DESC LIMIT ?"
                return try Row.fetchAll(db, sql: sql, arguments: [max(0, limit)]).reversed().map(RowReader.summary)
            }
        }
    }

    public func summaries(after sequence: Int64, limit: Int) throws -> [TraceSummary] {
        try guarded {
            try pool.read { db in
                let sql = """
                    SELECT \(RowReader.summaryColumns) FROM exchange WHERE sequence > ? ORDER BY sequence LIMIT ?
                    """
                return try Row.fetchAll(db, sql: sql, arguments: [sequence, max(0, limit)]).map(RowReader.summary)
            }
        }
    }

    public func exchange(id: UUID) throws -> TraceExchange? {
        try guarded {
            try pool.read { db in
                guard let row = try Row.fetchOne(db, sql: "SELECT * FROM exchange WHERE id = ?", arguments: [id.uuidString])
                else { return nil }
                return try Self.fullExchange(row, in: db)
            }
        }
    }

    public func count() throws -> Int {
        try guarded {
            try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM exchange") ?? 0 }
        }
    }

    /// An exchange row with its attempts and events.
    static func fullExchange(_ row: Row, in db: Database) throws -> TraceExchange {
        let sequence: Int64 = row["sequence"]
        let attempts = try Row.fetchAll(
            db, sql: "SELECT * FROM attempt WHERE exchange_sequence = ? ORDER BY number, rowid",
            arguments: [sequence]).map(RowReader.attempt)
        let events = try Row.fetchAll(
            db, sql: "SELECT * FROM event WHERE exchange_sequence = ? ORDER BY rowid",
            arguments: [sequence]).map(RowReader.event)
        return try RowReader.exchange(row, attempts: attempts, events: events)
    }

    // MARK: Errors

    /// Runs `body`, turning SQLite errors into ``TraceStoreError``s that name this store.
    func guarded<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw Self.storeError(error, path: path)
        }
    }

    private static func storeError(_ error: any Error, path: String) -> TraceStoreError {
        if let error = error as? TraceStoreError { return error }
        guard let error = error as? DatabaseError else { return .database(path, String(describing: error)) }
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT: return .notADatabase(path)
        case .SQLITE_CANTOPEN, .SQLITE_PERM: return .cannotOpen(path, error.message ?? "\(error)")
        default: return .database(path, error.message ?? "\(error)")
        }
    }
}
