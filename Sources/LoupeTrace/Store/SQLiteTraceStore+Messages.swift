import Foundation
import GRDB

extension SQLiteTraceStore {
    /// The stream columns of the exchanges with `sequences` (no messages): what `loupe list --json` adds to its
    /// rows. Exchanges that did not stream, and every exchange of a store older than v7, are absent.
    package func streams(sequences: [Int64]) throws -> [Int64: TraceStream] {
        guard !sequences.isEmpty else { return [:] }
        return try guarded {
            try pool.read { db in
                guard try db.columns(in: "exchange").contains(where: { $0.name == "stream" }) else { return [:] }
                let list = "[" + sequences.map(String.init).joined(separator: ",") + "]"
                let rows = try Row.fetchAll(db, sql: """
                    SELECT sequence, stream FROM exchange
                    WHERE stream IS NOT NULL AND sequence IN (SELECT value FROM json_each(?))
                    """, arguments: [list])
                var streams: [Int64: TraceStream] = [:]
                for row in rows {
                    guard let sequence = row[0] as Int64?, let header = RowReader.streamHeader(row[1]) else { continue }
                    streams[sequence] = TraceStream(header, messages: [])
                }
                return streams
            }
        }
    }

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
