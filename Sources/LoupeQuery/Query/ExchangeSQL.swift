import Foundation
import GRDB
import LoupeTrace

/// The exchanges list's queries as SQL over the `exchange` table: keyset walks through the index of the sort key.
///
/// An order is (key, sequence), both ascending or both descending, and every SQLite index on a key is in
/// (key, rowid) order, the rowid being `sequence`. `NULL` keys come first in that order. A walk from a row
/// therefore crosses at most three stretches of the index, each read in index order and so never sorted:
///
/// - the row's ties: `key = ? AND sequence > ?` (or `key IS NULL AND …`), by sequence;
/// - the keys beyond it: `key > ?`, by key then sequence;
/// - the `NULL`s, last when walking down (they sort below every value). Walking up from a `NULL` key, every value
///   lies beyond, as `key >= -9e999`: `-9e999` is SQLite's negative infinity, below every number, and text and
///   blobs sort above numbers, so that range is exactly "not NULL" and, unlike `IS NOT NULL`, an index range.
///
/// Each stretch is one statement with a `LIMIT`; counts are `COUNT(*)` over the same stretches.
struct ExchangeSQL {
    /// The filter, as SQL.
    let filter: SQLFilter
    let key: ExchangeSortKey
    /// `INDEXED BY …` to make the planner read the key's index, or empty to let it choose (see
    /// ``SQLiteTraceStore`` `exchangePage`).
    var indexHint = ""
    /// The summary columns of the store read (``SQLiteTraceStore`` `summaryColumns(in:)`).
    var columns = RowReader.summaryColumns
    /// The marks as a JSON array of ids, bound once whatever their number.
    private let idsJSON: String?
    private let throughSequence: Int64?

    init(_ query: ExchangeQuery, indexed: Bool = false) {
        filter = SQLFilter(query.filter, indexed: indexed)
        key = query.order.key
        idsJSON = query.ids.map { ids in "[" + ids.map { "\"\($0.uuidString)\"" }.sorted().joined(separator: ",") + "]" }
        throughSequence = query.throughSequence
    }

    /// Where a walk starts: just after (or at, when `inclusive`) the row with this key and sequence.
    struct Bound {
        var value: DatabaseValue
        var sequence: Int64
        var inclusive: Bool
    }

    /// One stretch of the index: a condition and the order that reads it from the index.
    struct Segment {
        var sql: String
        var arguments: [DatabaseValue]
        var orderBy: String
    }

    /// One statement and its arguments.
    struct Statement {
        var sql: String
        var arguments: StatementArguments
    }

    var column: String { "exchange." + key.column }

    /// Whether the query is filtered at all (by filter or marks).
    var isFiltered: Bool { filter.sql != "1" || idsJSON != nil }

    /// The filter, the marks and the sequence bound as one condition.
    var condition: Statement {
        var condition = Statement(sql: filter.sql, arguments: filter.arguments)
        if let idsJSON {
            condition = Statement(sql: "(\(condition.sql)) AND exchange.id IN (SELECT value FROM json_each(?))",
                                  arguments: condition.arguments + [idsJSON])
        }
        if let throughSequence {
            // A range of the rowid, which every index ends with: no index loses its use by it.
            condition = Statement(sql: "(\(condition.sql)) AND exchange.sequence <= ?",
                                  arguments: condition.arguments + [throughSequence])
        }
        return condition
    }

    /// The stretches a walk from `bound` (from the very end, when `nil`) crosses, in walking order: towards larger
    /// keys when `ascending`, else towards smaller ones.
    func segments(from bound: Bound?, ascending: Bool) -> [Segment] {
        let direction = ascending ? "ASC" : "DESC"
        let bySequence = "exchange.sequence \(direction)"
        let byKey = "\(column) \(direction), \(bySequence)"
        let nulls = Segment(sql: "\(column) IS NULL", arguments: [], orderBy: bySequence)
        let values = Segment(sql: key.isNullable ? "\(column) >= -9e999" : "1", arguments: [], orderBy: byKey)
        guard let bound else {
            guard key.isNullable else { return [values] }
            return ascending ? [nulls, values] : [values, nulls]
        }
        let comparison = (ascending ? ">" : "<") + (bound.inclusive ? "=" : "")
        let sequence = bound.sequence.databaseValue
        if bound.value.isNull {
            let ties = Segment(sql: "\(column) IS NULL AND exchange.sequence \(comparison) ?", arguments: [sequence],
                               orderBy: bySequence)
            return ascending ? [ties, values] : [ties]
        }
        let ties = Segment(sql: "\(column) = ? AND exchange.sequence \(comparison) ?", arguments: [bound.value, sequence],
                           orderBy: bySequence)
        let beyond = Segment(sql: "\(column) \(ascending ? ">" : "<") ?", arguments: [bound.value], orderBy: byKey)
        return ascending || !key.isNullable ? [ties, beyond] : [ties, beyond, nulls]
    }

    /// At most `limit` summaries of `segment` that match, in its order.
    func page(_ segment: Segment, limit: Int) -> Statement {
        let condition = condition
        return Statement(
            sql: """
                SELECT \(columns) FROM exchange \(indexHint)
                WHERE (\(segment.sql)) AND (\(condition.sql)) ORDER BY \(segment.orderBy) LIMIT ?
                """,
            arguments: StatementArguments(segment.arguments) + condition.arguments + [limit])
    }

    /// How many matching rows the segments hold: one statement, a `COUNT(*)` over each.
    func count(_ segments: [Segment]) -> Statement {
        let condition = condition
        var arguments = StatementArguments()
        let counts = segments.map { segment in
            arguments += StatementArguments(segment.arguments) + condition.arguments
            return "(SELECT COUNT(*) FROM exchange WHERE (\(segment.sql)) AND (\(condition.sql)))"
        }
        return Statement(sql: "SELECT " + (counts.isEmpty ? "0" : counts.joined(separator: " + ")), arguments: arguments)
    }

    /// The key's value in `summary`, as the store holds it (for a row no longer stored).
    func value(of summary: TraceSummary) -> DatabaseValue {
        switch key {
        case .time: summary.startedAt.timeIntervalSince1970.databaseValue
        case .duration: summary.duration?.databaseValue ?? .null
        case .status: summary.status?.databaseValue ?? .null
        case .size: summary.responseBodySize?.databaseValue ?? .null
        case .host: summary.host.databaseValue
        case .operation: summary.operation.databaseValue
        }
    }
}
