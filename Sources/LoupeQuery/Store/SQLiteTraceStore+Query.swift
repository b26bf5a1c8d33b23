import Foundation
import GRDB
import LoupeTrace

/// Filtered lists, statistics and lookups, answered in SQL (see ``SQLFilter`` for how a filter becomes SQL).
extension SQLiteTraceStore {
    public func summaries(matching filter: TraceFilter?, limit: Int) throws -> [TraceSummary] {
        let condition = SQLFilter(filter, indexed: hasSearchIndex)
        return try guarded {
            try pool.read { db in
                try condition.withFunction(in: db) {
                    let columns = summaryColumns(in: db)
                    let arguments = condition.arguments + [max(0, limit)]
                    // The newest rows first: when they hold `limit` matches, those are the answer.
                    let newest = try Row.fetchAll(db, sql: Self.newestMatchesSQL(columns: columns, condition: condition.sql),
                                                  arguments: arguments)
                    guard newest.count < limit else { return newest.reversed().map(RowReader.summary) }
                    let sql = """
                        SELECT \(columns) FROM exchange WHERE \(condition.sql)
                        ORDER BY sequence DESC LIMIT ?
                        """
                    return try Row.fetchAll(db, sql: sql, arguments: arguments)
                        .reversed().map(RowReader.summary)
                }
            }
        }
    }

    /// How many of the newest exchanges ``newestMatchesSQL(columns:condition:)`` looks through.
    package static let newestWindow = 20_000

    /// The newest matches among the newest ``newestWindow`` exchanges, walked newest first on the primary key
    /// (`NOT INDEXED`). Without statistics SQLite reads a filter on an indexed column (`~c 5xx`) through that
    /// column's index and sorts every match to return the last few; walking the newest rows stops at the limit
    /// instead. A filter that matches fewer than the limit there is a rare one, which the column's index then
    /// answers quickly: ``summaries(matching:limit:)`` falls back to the planner's own query.
    package static func newestMatchesSQL(columns: String, condition: String) -> String {
        """
        SELECT \(columns) FROM exchange NOT INDEXED
        WHERE sequence > (SELECT IFNULL(MAX(sequence), 0) FROM exchange) - \(newestWindow) AND (\(condition))
        ORDER BY sequence DESC LIMIT ?
        """
    }

    public func exchanges(matching filter: TraceFilter?, limit: Int) throws -> [TraceExchange] {
        let condition = SQLFilter(filter, indexed: hasSearchIndex)
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
