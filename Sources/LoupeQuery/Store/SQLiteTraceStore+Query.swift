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
