import Foundation
import GRDB
import LoupeTrace

/// Exchanges for the aggregating screens: rows after a sequence with their attempts and events, and a stream's
/// messages without their payloads, but no headers or bodies (the columns are read as empty), so catching up with a
/// large store reads only what the figures use.
extension SQLiteTraceStore {
    /// The columns of ``RowReader/positionalExchange(_:attempts:events:)`` with headers and bodies left out
    /// (their sizes kept).
    static let activityColumns = """
        sequence, id, operation, method, url, started_at, ended_at, outcome, status, error, replay_of,
        NULL, NULL, request_body_size, NULL, NULL, NULL, response_body_size, NULL
        """

    public func activity(after sequence: Int64, limit: Int) throws -> [TraceExchange] {
        try guarded {
            try pool.read { db in
                let rows = try Row.fetchCursor(db.cachedStatement(sql: """
                    SELECT \(Self.activityColumns) FROM exchange WHERE sequence > ? ORDER BY sequence LIMIT ?
                    """), arguments: [sequence, max(1, limit)])
                var exchanges: [TraceExchange] = []
                while let row = try rows.next() {
                    exchanges.append(try RowReader.positionalExchange(row, attempts: [], events: []))
                }
                guard let first = exchanges.first?.sequence, let last = exchanges.last?.sequence else { return [] }
                try Self.attachAttemptsAndEvents(to: &exchanges, from: first, through: last, in: db)
                try Self.attachStreamTimes(to: &exchanges, from: first, through: last, in: db)
                return exchanges
            }
        }
    }

    public func activity(sequences: [Int64]) throws -> [TraceExchange] {
        guard !sequences.isEmpty else { return [] }
        let list = "[" + Set(sequences).sorted().map(String.init).joined(separator: ",") + "]"
        return try guarded {
            try pool.read { db in
                var exchanges = try Row.fetchAll(db.cachedStatement(sql: """
                    SELECT \(Self.activityColumns) FROM exchange
                    WHERE sequence IN (SELECT value FROM json_each(?)) ORDER BY sequence
                    """), arguments: [list]).map { try RowReader.positionalExchange($0, attempts: [], events: []) }
                guard !exchanges.isEmpty else { return [] }
                try Self.attachAttemptsAndEvents(to: &exchanges, sequencesJSON: list, in: db)
                try Self.attachStreamTimes(to: &exchanges, sequencesJSON: list, in: db)
                return exchanges
            }
        }
    }
}
