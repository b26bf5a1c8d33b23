import Foundation
import GRDB
import LoupeTrace
import Synchronization

/// The basic reads, through which the other requirements of ``TraceStore`` could all be answered.
extension SQLiteTraceStore: TraceStore {
    public func recent(limit: Int) throws -> [TraceSummary] {
        try guarded {
            try pool.read { db in
                let sql = "SELECT \(summaryColumns(in: db)) FROM exchange ORDER BY sequence DESC LIMIT ?"
                return try Row.fetchAll(db, sql: sql, arguments: [max(0, limit)]).reversed().map(RowReader.summary)
            }
        }
    }

    public func summaries(after sequence: Int64, limit: Int) throws -> [TraceSummary] {
        try guarded {
            try pool.read { db in
                let sql = """
                    SELECT \(summaryColumns(in: db)) FROM exchange WHERE sequence > ? ORDER BY sequence LIMIT ?
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
        var exchange = try RowReader.exchange(row, attempts: attempts, events: events)
        if exchange.stream != nil {
            exchange.stream?.messages = try RowReader.messages(of: sequence, in: db)
        }
        return exchange
    }
}

extension SQLiteTraceStore {
    /// The columns a summary is read from in this store: ``RowReader/summaryColumns``, with NULL for the source's
    /// app or the stream in a store from before schema v6 or v7 opened read-only (looked up once).
    func summaryColumns(in db: Database) -> String {
        if let known = summaryColumnList.withLock({ $0 }) { return known }
        let names = (try? Row.fetchAll(db, sql: "PRAGMA table_info(exchange)"))?.compactMap { $0["name"] as String? }
        let columns = names.map { names in
            RowReader.summaryColumns(source: names.contains("source"), stream: names.contains("stream"))
        } ?? RowReader.summaryColumns
        summaryColumnList.withLock { $0 = columns }
        return columns
    }
}
