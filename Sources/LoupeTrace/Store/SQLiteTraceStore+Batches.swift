import Foundation
import GRDB

/// Whole exchanges read in batches, for reading many (export): per batch one query for the exchange rows, one
/// for all their attempts and one for all their events, never one per exchange, through statements prepared once
/// per connection (preparing is where GRDB's statement authorizer runs), with rows read by column position.
extension SQLiteTraceStore {
    /// Calls `body` with the exchanges matching `filter` (all when `nil`), oldest first, in batches of at most
    /// `batchSize` exchanges (fewer once a batch holds `byteBudget` bytes of headers and bodies), each exchange
    /// whole, as ``exchange(id:)`` reads it.
    ///
    /// Only exchanges stored when the call begins are read, so a store being recorded into does not keep it going.
    /// Each batch is its own read: a long export never holds one snapshot open against the store's writers.
    /// Memory holds one batch; with a filter, also the matching sequence numbers (8 bytes each), collected first so
    /// that the filter runs once, with whatever index serves it.
    package func forEachBatch(matching filter: TraceFilter?, batchSize: Int = 500, byteBudget: Int = 8 << 20,
                              _ body: ([TraceExchange]) throws -> Void) throws {
        let limit = max(1, batchSize)
        let condition = filter.map { SQLFilter($0) }
        let plan: BatchPlan = try guarded {
            try pool.read { db in
                guard let newest = try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM exchange") else { return .none }
                guard let condition else { return .range(after: Int64.min, through: newest) }
                return try condition.withFunction(in: db) {
                    let sql = "SELECT sequence FROM exchange WHERE (\(condition.sql)) AND sequence <= ? ORDER BY sequence"
                    return .listed(try Int64.fetchAll(db, sql: sql, arguments: condition.arguments + [newest])[...])
                }
            }
        }
        var remaining = plan
        while true {
            let batch: [TraceExchange] = try guarded {
                try pool.read { db in try Self.readBatch(&remaining, limit: limit, byteBudget: byteBudget, in: db) }
            }
            guard !batch.isEmpty else { return }
            try body(batch)
        }
    }

    /// What is left to read: a range of sequences, or the listed ones.
    enum BatchPlan {
        case none
        case range(after: Int64, through: Int64)
        case listed(ArraySlice<Int64>)
    }

    /// The next batch of `plan`, which then names what is left after it; empty when nothing is left.
    static func readBatch(_ plan: inout BatchPlan, limit: Int, byteBudget: Int, in db: Database) throws -> [TraceExchange] {
        while true {
            let rowsSQL: String
            let arguments: StatementArguments
            switch plan {
            case .none:
                return []
            case .range(let after, let newest):
                rowsSQL = "sequence > ? AND sequence <= ? ORDER BY sequence LIMIT ?"
                arguments = [after, newest, limit]
            case .listed(let sequences):
                guard !sequences.isEmpty else { return [] }
                rowsSQL = "sequence IN (SELECT value FROM json_each(?)) ORDER BY sequence"
                arguments = [jsonList(sequences.prefix(limit))]
            }
            var exchanges = try readRows(
                "SELECT \(RowReader.positionalExchangeColumns) FROM exchange WHERE \(rowsSQL)", arguments,
                byteBudget: byteBudget, in: db)
            switch plan {
            case .none:
                return []
            case .range(_, let newest):
                guard let last = exchanges.last?.sequence else { return [] }
                plan = .range(after: last, through: newest)
            case .listed(let sequences):
                // Listed exchanges deleted since (pruned) are passed over.
                let last = exchanges.last?.sequence ?? sequences.prefix(limit).last ?? .max
                plan = .listed(sequences.drop { $0 <= last })
            }
            guard let first = exchanges.first?.sequence, let last = exchanges.last?.sequence else { continue }
            try attachAttemptsAndEvents(to: &exchanges, from: first, through: last, in: db)
            return exchanges
        }
    }

    /// The exchange rows, without attempts and events; reading stops once `byteBudget` bytes of headers and bodies
    /// are held (after at least one row).
    private static func readRows(_ sql: String, _ arguments: StatementArguments, byteBudget: Int, in db: Database)
        throws -> [TraceExchange] {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        var exchanges: [TraceExchange] = []
        var bytes = 0
        while bytes < byteBudget, let row = try rows.next() {
            let exchange = try RowReader.positionalExchange(row, attempts: [], events: [])
            bytes += (exchange.requestBody?.data.count ?? 0) + (exchange.responseBody?.data.count ?? 0)
                + exchange.requestHeaders.count * 64 + exchange.responseHeaders.count * 64
            exchanges.append(exchange)
        }
        return exchanges
    }

    /// Reads the attempts and events of exchanges with sequences `first...last` (sorted) and adds them to theirs,
    /// in the order ``fullExchange(_:in:)`` gives (attempts by number then insertion, events by insertion).
    static func attachAttemptsAndEvents(to exchanges: inout [TraceExchange], from first: Int64, through last: Int64,
                                                in db: Database) throws {
        // The range may hold exchanges of the store that are not in the batch (a filter left them out): their
        // attempts and events are read and dropped, a cost bounded by what the range holds.
        let hasNotes = try db.columns(in: "attempt").contains { $0.name == "notes" }
        let attempts = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT \(RowReader.positionalAttemptColumns(hasNotes: hasNotes)) FROM attempt
            WHERE exchange_sequence BETWEEN ? AND ? ORDER BY exchange_sequence, number, rowid
            """), arguments: [first, last])
        try merge(attempts, into: &exchanges) { exchange, row in exchange.attempts.append(RowReader.positionalAttempt(row)) }
        let events = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT \(RowReader.positionalEventColumns) FROM event
            WHERE exchange_sequence BETWEEN ? AND ? ORDER BY exchange_sequence, rowid
            """), arguments: [first, last])
        try merge(events, into: &exchanges) { exchange, row in exchange.events.append(try RowReader.positionalEvent(row)) }
    }

    /// Attaches the attempts and events of exactly the exchanges whose sequences `sequencesJSON` lists (a JSON
    /// array): for scattered rows, where a range would read everything between them.
    static func attachAttemptsAndEvents(to exchanges: inout [TraceExchange], sequencesJSON: String,
                                        in db: Database) throws {
        let hasNotes = try db.columns(in: "attempt").contains { $0.name == "notes" }
        let attempts = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT \(RowReader.positionalAttemptColumns(hasNotes: hasNotes)) FROM attempt
            WHERE exchange_sequence IN (SELECT value FROM json_each(?)) ORDER BY exchange_sequence, number, rowid
            """), arguments: [sequencesJSON])
        try merge(attempts, into: &exchanges) { exchange, row in exchange.attempts.append(RowReader.positionalAttempt(row)) }
        let events = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT \(RowReader.positionalEventColumns) FROM event
            WHERE exchange_sequence IN (SELECT value FROM json_each(?)) ORDER BY exchange_sequence, rowid
            """), arguments: [sequencesJSON])
        try merge(events, into: &exchanges) { exchange, row in exchange.events.append(try RowReader.positionalEvent(row)) }
    }

    /// Walks rows ordered by `exchange_sequence` (column 0) alongside exchanges ordered by sequence.
    private static func merge(_ rows: RowCursor, into exchanges: inout [TraceExchange],
                              _ add: (inout TraceExchange, Row) throws -> Void) throws {
        var index = exchanges.startIndex
        while let row = try rows.next() {
            let value: DatabaseValue = row[0]
            guard let sequence = RowReader.sequence(value) else { continue }
            while index < exchanges.endIndex, (exchanges[index].sequence ?? .min) < sequence { index += 1 }
            guard index < exchanges.endIndex else { return }
            if exchanges[index].sequence == sequence { try add(&exchanges[index], row) }
        }
    }

    private static func jsonList(_ sequences: ArraySlice<Int64>) -> String {
        "[" + sequences.map(String.init).joined(separator: ",") + "]"
    }
}
