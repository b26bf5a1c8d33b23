import Foundation
import GRDB
import LoupeTrace

extension SQLiteTraceStore {
    /// How many messages the exchange `sequence` kept.
    package func messageCount(exchange sequence: Int64) throws -> Int {
        try guarded {
            try pool.read { db in
                guard try db.tableExists("message") else { return 0 }
                return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message WHERE exchange_sequence = ?", arguments: [sequence]) ?? 0
            }
        }
    }

    /// `limit` kept messages of the exchange `sequence` from position `offset` (0 the first kept), in order: one
    /// window of the Messages tab, read through the `(exchange_sequence, idx)` index however long the stream.
    package func messages(exchange sequence: Int64, offset: Int, limit: Int) throws -> [TraceMessage] {
        try guarded {
            try pool.read { db in
                guard try db.tableExists("message") else { return [] }
                return try Row.fetchAll(db, sql: """
                    SELECT \(RowReader.messageColumns) FROM message WHERE exchange_sequence = ? ORDER BY idx LIMIT ? OFFSET ?
                    """, arguments: [sequence, max(0, limit), max(0, offset)]).map(RowReader.message)
            }
        }
    }
}
