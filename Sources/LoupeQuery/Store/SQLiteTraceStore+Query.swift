import Foundation
import GRDB
import LoupeTrace

/// Filtered lists, statistics and lookups, answered in SQL (see ``SQLFilter`` for how a filter becomes SQL).
extension SQLiteTraceStore {
    public func summaries(matching filter: TraceFilter?, limit: Int) throws -> [TraceSummary] {
        let condition = SQLFilter(filter)
        return try guarded {
            try pool.read { db in
                try condition.withFunction(in: db) {
                    let sql = """
                        SELECT \(summaryColumns(in: db)) FROM exchange WHERE \(condition.sql)
                        ORDER BY sequence DESC LIMIT ?
                        """
                    return try Row.fetchAll(db, sql: sql, arguments: condition.arguments + [max(0, limit)])
                        .reversed().map(RowReader.summary)
                }
            }
        }
    }

    public func exchanges(matching filter: TraceFilter?, limit: Int) throws -> [TraceExchange] {
        let condition = SQLFilter(filter)
        return try guarded {
            try pool.read { db in
                try condition.withFunction(in: db) {
                    let sql = "SELECT * FROM exchange WHERE \(condition.sql) ORDER BY sequence DESC LIMIT ?"
                    return try Row.fetchAll(db, sql: sql, arguments: condition.arguments + [max(0, limit)])
                        .reversed().map { try Self.fullExchange($0, in: db) }
                }
            }
        }
    }

    /// Reads only the columns the figures need (no headers or bodies), with each exchange's count of breaker
    /// transitions joined from the `event_kind` index.
    public func stats(matching filter: TraceFilter?) throws -> [TraceStats] {
        let condition = SQLFilter(filter)
        return try guarded {
            try pool.read { db in
                try condition.withFunction(in: db) {
                    let sql = """
                        SELECT exchange.operation, exchange.host, exchange.duration, exchange.outcome,
                            exchange.attempt_count, exchange.request_body_size, exchange.response_body_size,
                            IFNULL(transitions.count, 0)
                        FROM exchange
                        LEFT JOIN (SELECT exchange_sequence, COUNT(*) AS count FROM event WHERE kind = ?
                                   GROUP BY exchange_sequence) AS transitions
                            ON transitions.exchange_sequence = exchange.sequence
                        WHERE \(condition.sql)
                        """
                    var accumulator = TraceStatsAccumulator()
                    let arguments: StatementArguments = [TraceStatsAccumulator.circuitKind] + condition.arguments
                    let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
                    while let row = try rows.next() { RowReader.addStats(row, to: &accumulator) }
                    return accumulator.result()
                }
            }
        }
    }

    public func exchange(sequence: Int64) throws -> TraceExchange? {
        try guarded {
            try pool.read { db in
                guard let row = try Row.fetchOne(db, sql: "SELECT * FROM exchange WHERE sequence = ?", arguments: [sequence])
                else { return nil }
                return try Self.fullExchange(row, in: db)
            }
        }
    }

    /// Ids are upper-case text, so a prefix is a range of the unique `id` index: `[prefix, prefix + "~")`.
    public func summaries(idPrefix: String, limit: Int) throws -> [TraceSummary] {
        let prefix = idPrefix.uppercased()
        return try guarded {
            try pool.read { db in
                let sql = "SELECT \(summaryColumns(in: db)) FROM exchange WHERE id >= ? AND id < ? ORDER BY id LIMIT ?"
                return try Row.fetchAll(db, sql: sql, arguments: [prefix, prefix + "~", max(0, limit)]).map(RowReader.summary)
            }
        }
    }
}
