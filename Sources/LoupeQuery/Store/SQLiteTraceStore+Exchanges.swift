import Foundation
import GRDB
import LoupeTrace
import Synchronization

/// The exchanges list in SQL: keyset pages read from the sort key's index (see ``ExchangeSQL``), filters and marks
/// applied to the whole store, counts and ranks as `COUNT(*)` over index ranges.
///
/// A filtered page the planner would sort (`EXPLAIN QUERY PLAN` says `USE TEMP B-TREE`) first counts matches,
/// stopping at ``denseMatches``. When there are that many, matches are dense enough that reading the sort key's
/// index in order and testing each row finds a page quickly (on a million rows, at most a hundred rows read per
/// row returned), so the statement names the index: SQLite's planner, which has no statistics, would rather use
/// the filter's own index and sort every match (`~m GET` sorted by duration: 0.4 s instead of 1 ms). Fewer
/// matches are left to the planner, which finds them through the filter's indexes and sorts them: at most
/// ``denseMatches`` rows.
extension SQLiteTraceStore {
    /// Matches at and above which a filtered page reads the sort key's index in order.
    static let denseMatches = 10_000

    public func exchangePage(_ query: ExchangeQuery, from anchor: ExchangeAnchor, limit: Int) throws -> [TraceSummary] {
        guard limit > 0 else { return [] }
        return try guarded {
            try pool.read { db in
                let walk = try exchangeWalk(query, from: anchor, in: db)
                return try walk.sql.filter.withFunction(in: db) {
                    var rows: [TraceSummary] = []
                    for segment in walk.segments where rows.count < limit {
                        let statement = walk.sql.page(segment, limit: limit - rows.count)
                        rows += try Row.fetchAll(db, sql: statement.sql, arguments: statement.arguments)
                            .map(RowReader.summary)
                    }
                    return walk.reversed ? rows.reversed() : rows
                }
            }
        }
    }

    public func exchangeCount(_ query: ExchangeQuery) throws -> Int {
        try exchangeTotal(query).count
    }

    /// One read transaction, so the count and the newest sequence are of the same snapshot.
    public func exchangeTotal(_ query: ExchangeQuery) throws -> ExchangeTotal {
        let sql = ExchangeSQL(query, indexed: hasSearchIndex)
        return try guarded {
            try pool.read { db in
                try sql.filter.withFunction(in: db) {
                    let statement = sql.count([ExchangeSQL.Segment(sql: "1", arguments: [], orderBy: "")])
                    let count = try Int.fetchOne(db, sql: statement.sql, arguments: statement.arguments) ?? 0
                    let newest = try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM exchange")
                    return ExchangeTotal(count: count, newestSequence: newest)
                }
            }
        }
    }

    public func exchangeRank(_ query: ExchangeQuery, of summary: TraceSummary) throws -> Int {
        try guarded {
            try pool.read { db in
                let statement = try exchangeRankStatement(query, of: summary, in: db)
                return try ExchangeSQL(query, indexed: hasSearchIndex).filter.withFunction(in: db) {
                    try Int.fetchOne(db, sql: statement.sql, arguments: statement.arguments) ?? 0
                }
            }
        }
    }

    /// Counts the rows after `sequence` through the rowid (`NOT INDEXED` keeps SQLite from preferring a filter's
    /// index, which would find every match in the store): a poll costs a pass over the rows that arrived, and
    /// reads one of them. Those before `anchor` are the ones in the segments a walk back from it crosses.
    public func exchangeArrivals(_ query: ExchangeQuery, after sequence: Int64, before anchor: TraceSummary?) throws
        -> ExchangeArrivals
    {
        let sql = ExchangeSQL(query, indexed: hasSearchIndex)
        return try guarded {
            try pool.read { db in
                try sql.filter.withFunction(in: db) {
                    let condition = sql.condition
                    let range = "exchange.sequence > ? AND (\(condition.sql))"
                    let arguments: StatementArguments = [sequence] + condition.arguments
                    var preceding = ExchangeSQL.Statement(sql: "0", arguments: [])
                    if let anchor {
                        let start = try bound(anchor, sql, inclusive: false, in: db)
                        let segments = sql.segments(from: start, ascending: query.order.descending)
                        preceding.sql = "COALESCE(SUM(" + segments.map { "(\($0.sql))" }.joined(separator: " OR ") + "), 0)"
                        preceding.arguments = StatementArguments(segments.flatMap(\.arguments))
                    }
                    let tally = try Row.fetchOne(
                        db, sql: "SELECT COUNT(*), \(preceding.sql) FROM exchange NOT INDEXED WHERE \(range)",
                        arguments: preceding.arguments + arguments)
                    let count: Int = tally?[0] ?? 0
                    guard count > 0 else { return ExchangeArrivals(count: 0, preceding: 0, newest: nil) }
                    let newest = try Row.fetchOne(db, sql: """
                        SELECT \(summaryColumns(in: db)) FROM exchange NOT INDEXED WHERE \(range)
                        ORDER BY exchange.sequence DESC LIMIT 1
                        """, arguments: arguments).map(RowReader.summary)
                    return ExchangeArrivals(count: count, preceding: tally?[1] ?? 0, newest: newest)
                }
            }
        }
    }

    /// Read on the writer's connection, the one connection that is always the same: `PRAGMA data_version` counts
    /// other connections' commits as one connection saw them, so values from the pool's several readers would not
    /// compare. Its own commits are counted by `total_changes()` instead. (On a writable store this waits for a
    /// write in progress.)
    public func changeMarker() throws -> StoreChangeMarker {
        try guarded {
            try pool.writeWithoutTransaction { db in
                let version = try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0
                let changes = try Int64.fetchOne(db, sql: "SELECT total_changes()") ?? 0
                // Two subqueries, each one seek: `SELECT MAX(sequence), MIN(sequence)` would read every row.
                let row = try Row.fetchOne(
                    db, sql: "SELECT (SELECT MAX(sequence) FROM exchange), (SELECT MIN(sequence) FROM exchange)")
                return StoreChangeMarker(maxSequence: row?[0], minSequence: row?[1], version: version &+ changes)
            }
        }
    }

    // MARK: Statements

    /// The stretches ``exchangePage(_:from:limit:)`` reads in turn, and whether it then reverses the rows.
    func exchangeWalk(_ query: ExchangeQuery, from anchor: ExchangeAnchor, in db: Database) throws
        -> (sql: ExchangeSQL, segments: [ExchangeSQL.Segment], reversed: Bool)
    {
        var sql = ExchangeSQL(query, indexed: hasSearchIndex)
        sql.columns = summaryColumns(in: db)
        sql.indexHint = try sql.filter.withFunction(in: db) { try indexHint(for: sql, in: db) }
        let forward = !query.order.descending
        let (start, ascending, reversed): (ExchangeSQL.Bound?, Bool, Bool) = switch anchor {
        case .first: (nil, forward, false)
        case .last: (nil, !forward, true)
        case .after(let row): (try bound(row, sql, inclusive: false, in: db), forward, false)
        case .at(let row): (try bound(row, sql, inclusive: true, in: db), forward, false)
        case .before(let row): (try bound(row, sql, inclusive: false, in: db), !forward, true)
        }
        return (sql, sql.segments(from: start, ascending: ascending), reversed)
    }

    /// The count of matching rows before `summary`: a walk backwards from it, counted.
    func exchangeRankStatement(_ query: ExchangeQuery, of summary: TraceSummary, in db: Database) throws -> ExchangeSQL.Statement {
        let sql = ExchangeSQL(query, indexed: hasSearchIndex)
        let start = try bound(summary, sql, inclusive: false, in: db)
        return sql.count(sql.segments(from: start, ascending: query.order.descending))
    }

    /// `INDEXED BY` the sort key's index when it exists and the query is unfiltered or dense (see above). The
    /// probe runs only when SQLite would sort: when it reads the sort key's index in order anyway (a filter no
    /// index serves, such as a regex), a probe would only read the same rows twice.
    private func indexHint(for sql: ExchangeSQL, in db: Database) throws -> String {
        let index = sql.key.indexName
        let known = sortIndexes.withLock { $0[index] }
        let exists = try known ?? Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?)", arguments: [index])
            ?? false
        if known == nil { sortIndexes.withLock { $0[index] = exists } }
        guard exists else { return "" }
        guard sql.isFiltered else { return "INDEXED BY \(index)" }
        let sample = sql.page(sql.segments(from: nil, ascending: true).last!, limit: 200)
        let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sample.sql, arguments: sample.arguments)
        guard plan.contains(where: { ($0["detail"] as String?)?.contains("TEMP B-TREE") == true }) else { return "" }
        let condition = sql.condition
        let probe = "SELECT COUNT(*) FROM (SELECT 1 FROM exchange WHERE \(condition.sql) LIMIT ?)"
        let found = try Int.fetchOne(db, sql: probe, arguments: condition.arguments + [Self.denseMatches]) ?? 0
        return found >= Self.denseMatches ? "INDEXED BY \(index)" : ""
    }

    /// Where a walk from `row` starts: its key as stored now, found by its sequence (exact, where the summary's
    /// copy may have been rounded or redacted since); the summary's own when the row is gone.
    private func bound(_ row: TraceSummary, _ sql: ExchangeSQL, inclusive: Bool, in db: Database) throws -> ExchangeSQL.Bound {
        let stored = try Row.fetchOne(db, sql: "SELECT \(sql.column) FROM exchange WHERE sequence = ?",
                                      arguments: [row.sequence])
        let value = stored.map { $0[0] as DatabaseValue } ?? sql.value(of: row)
        return ExchangeSQL.Bound(value: value, sequence: row.sequence, inclusive: inclusive)
    }
}
