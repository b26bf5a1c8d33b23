import Foundation
import GRDB
import LoupeTrace

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
        try forEachBatch(matching: filter, batchSize: batchSize, byteBudget: byteBudget, keepingStoredHeaders: false) {
            batch, _ in try body(batch)
        }
    }

    /// As ``forEachBatch(matching:batchSize:byteBudget:_:)``; with `keepingStoredHeaders`, a header list stored in
    /// the exact form ``StoredHeaderText`` reads is left unparsed (the exchange's list is empty) and handed to
    /// `body` beside the batch, one pair (request, response) per exchange.
    package func forEachBatch(matching filter: TraceFilter?, batchSize: Int, byteBudget: Int, keepingStoredHeaders: Bool,
                              _ body: ([TraceExchange], [StoredHeaderPair]) throws -> Void) throws {
        let limit = max(1, batchSize)
        var remaining = try batchPlan(matching: filter)
        while true {
            let (batch, headers) = try guarded {
                try pool.read { db in
                    try Self.readBatch(&remaining, limit: limit, byteBudget: byteBudget,
                                       keepingStoredHeaders: keepingStoredHeaders, in: db)
                }
            }
            guard !batch.isEmpty else { return }
            try body(batch, headers)
        }
    }

    /// As ``forEachBatch(matching:batchSize:byteBudget:_:)``, each exchange holding only its request side and
    /// status (response headers and body, attempts, events and stream messages left unread; a stream's header kept):
    /// what matching requests needs (`loupe serve`), which reads the response when it serves it.
    package func forEachRequestBatch(matching filter: TraceFilter?, batchSize: Int = 2_000, byteBudget: Int = 8 << 20,
                                     _ body: ([TraceExchange]) throws -> Void) throws {
        let limit = max(1, batchSize)
        var remaining = try batchPlan(matching: filter)
        while true {
            let (batch, _) = try guarded {
                try pool.read { db in
                    try Self.readBatch(&remaining, limit: limit, byteBudget: byteBudget, keepingStoredHeaders: false,
                                       requestsOnly: true, in: db)
                }
            }
            guard !batch.isEmpty else { return }
            try body(batch)
        }
    }

    /// A cursor over the exchanges ``forEachBatch(matching:batchSize:byteBudget:_:)`` would hand over, for a caller
    /// that must await between batches (an export over the network): the same plan, read one batch per
    /// ``ExchangeBatchCursor/next()``.
    package func batchCursor(matching filter: TraceFilter?, batchSize: Int = 500, byteBudget: Int = 8 << 20) throws
        -> ExchangeBatchCursor {
        ExchangeBatchCursor(store: self, remaining: try batchPlan(matching: filter), limit: max(1, batchSize),
                            byteBudget: byteBudget)
    }

    /// Exchanges read a batch at a time; see ``SQLiteTraceStore/batchCursor(matching:batchSize:byteBudget:)``.
    package struct ExchangeBatchCursor {
        let store: SQLiteTraceStore
        var remaining: BatchPlan
        let limit: Int
        let byteBudget: Int

        /// The next batch, oldest first; empty when every matching exchange was read.
        package mutating func next() throws -> [TraceExchange] {
            var remaining = self.remaining
            let (limit, byteBudget) = (self.limit, self.byteBudget)
            let batch = try store.guarded {
                try store.pool.read { db in
                    try SQLiteTraceStore.readBatch(&remaining, limit: limit, byteBudget: byteBudget,
                                                   keepingStoredHeaders: false, in: db).0
                }
            }
            self.remaining = remaining
            return batch
        }
    }

    /// The sequences matching `filter` among those stored now: all of them as a range, or listed.
    private func batchPlan(matching filter: TraceFilter?) throws -> BatchPlan {
        let condition = filter.map { SQLFilter($0, indexed: hasSearchIndex) }
        return try guarded {
            try pool.read { db in
                guard let newest = try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM exchange") else { return .none }
                guard let condition else { return .range(after: Int64.min, through: newest) }
                return try condition.withFunction(in: db) {
                    let sql = "SELECT sequence FROM exchange WHERE (\(condition.sql)) AND sequence <= ? ORDER BY sequence"
                    return .listed(try Int64.fetchAll(db, sql: sql, arguments: condition.arguments + [newest])[...])
                }
            }
        }
    }

    /// What is left to read: a range of sequences, or the listed ones.
    enum BatchPlan {
        case none
        case range(after: Int64, through: Int64)
        case listed(ArraySlice<Int64>)
    }

    /// An exchange's request and response header lists as stored, when in the exact form.
    package typealias StoredHeaderPair = (request: StoredHeaderText?, response: StoredHeaderText?)

    /// The next batch of `plan`, which then names what is left after it; empty when nothing is left. The stored
    /// header lists are empty unless `keepingStoredHeaders`.
    /// With `requestsOnly`, each exchange holds only its row's request side and status (no response headers or
    /// body, attempts, events or stream messages; a stream's header, for its kind).
    static func readBatch(_ plan: inout BatchPlan, limit: Int, byteBudget: Int, keepingStoredHeaders: Bool,
                          requestsOnly: Bool = false, in db: Database) throws -> ([TraceExchange], [StoredHeaderPair]) {
        while true {
            let rowsSQL: String
            let arguments: StatementArguments
            switch plan {
            case .none:
                return ([], [])
            case .range(let after, let newest):
                rowsSQL = "sequence > ? AND sequence <= ? ORDER BY sequence LIMIT ?"
                arguments = [after, newest, limit]
            case .listed(let sequences):
                guard !sequences.isEmpty else { return ([], []) }
                rowsSQL = "sequence IN (SELECT value FROM json_each(?)) ORDER BY sequence"
                arguments = [jsonList(sequences.prefix(limit))]
            }
            // The linked app's name (schema v6) after the usual columns; none in an older store opened read-only.
            let hasSource = try db.columns(in: "exchange").contains { $0.name == "source" }
            let columns = requestsOnly ? RowReader.positionalRequestColumns : RowReader.positionalExchangeColumns
            let (rows, headers) = try readRows(
                "SELECT \(columns)\(hasSource ? ", source" : "") FROM exchange WHERE \(rowsSQL)",
                arguments, byteBudget: byteBudget, keepingStoredHeaders: keepingStoredHeaders, hasSource: hasSource, in: db)
            var exchanges = rows
            switch plan {
            case .none:
                return ([], [])
            case .range(_, let newest):
                guard let last = exchanges.last?.sequence else { return ([], []) }
                plan = .range(after: last, through: newest)
            case .listed(let sequences):
                // Listed exchanges deleted since (pruned) are passed over.
                let last = exchanges.last?.sequence ?? sequences.prefix(limit).last ?? .max
                plan = .listed(sequences.drop { $0 <= last })
            }
            guard let first = exchanges.first?.sequence, let last = exchanges.last?.sequence else { continue }
            if requestsOnly {
                try attachStreamHeaders(to: &exchanges, from: first, through: last, in: db)
                return (exchanges, headers)
            }
            try attachAttemptsAndEvents(to: &exchanges, from: first, through: last, in: db)
            try attachStreams(to: &exchanges, from: first, through: last, in: db)
            return (exchanges, headers)
        }
    }

    /// The exchange rows, without attempts and events; reading stops once `byteBudget` bytes of headers and bodies
    /// are held (after at least one row). With `keepingStoredHeaders`, header lists in the exact form are returned
    /// unparsed beside them.
    private static func readRows(_ sql: String, _ arguments: StatementArguments, byteBudget: Int,
                                 keepingStoredHeaders: Bool, hasSource: Bool, in db: Database)
        throws -> ([TraceExchange], [StoredHeaderPair]) {
        let statement = try db.cachedStatement(sql: sql)
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        var exchanges: [TraceExchange] = []
        var storedHeaders: [StoredHeaderPair] = []
        var bytes = 0
        while bytes < byteBudget, try rows.next() != nil {
            var exchange: TraceExchange
            if keepingStoredHeaders {
                var pair: StoredHeaderPair = (nil, nil)
                exchange = try RowReader.positionalExchange(statement, attempts: [], events: []) { text, isRequest in
                    guard let text, let stored = StoredHeaderText(text) else { return try StoredJSON.headers(text) }
                    if isRequest { pair.request = stored } else { pair.response = stored }
                    bytes += stored.text.utf8.count
                    return []
                }
                storedHeaders.append(pair)
            } else {
                exchange = try RowReader.positionalExchange(statement, attempts: [], events: [])
            }
            if hasSource {
                exchange.source = RowReader.source(String.fromDatabaseValue(RowReader.column(19, of: statement)))
            }
            bytes += (exchange.requestBody?.data.count ?? 0) + (exchange.responseBody?.data.count ?? 0)
                + exchange.requestHeaders.count * 64 + exchange.responseHeaders.count * 64
            exchanges.append(exchange)
        }
        return (exchanges, storedHeaders)
    }

    /// Reads the attempts and events of exchanges with sequences `first...last` (sorted) and adds them to theirs,
    /// in the order ``fullExchange(_:in:)`` gives (attempts by number then insertion, events by insertion).
    static func attachAttemptsAndEvents(to exchanges: inout [TraceExchange], from first: Int64, through last: Int64,
                                                in db: Database) throws {
        // The range may hold exchanges of the store that are not in the batch (a filter left them out): their
        // attempts and events are read and dropped, a cost bounded by what the range holds.
        let hasNotes = try db.columns(in: "attempt").contains { $0.name == "notes" }
        try merge(db.cachedStatement(sql: """
            SELECT \(RowReader.positionalAttemptColumns(hasNotes: hasNotes)) FROM attempt
            WHERE exchange_sequence BETWEEN ? AND ? ORDER BY exchange_sequence, number, rowid
            """), [first, last], into: &exchanges) { exchange, row in exchange.attempts.append(RowReader.positionalAttempt(row)) }
        try merge(db.cachedStatement(sql: """
            SELECT \(RowReader.positionalEventColumns) FROM event
            WHERE exchange_sequence BETWEEN ? AND ? ORDER BY exchange_sequence, rowid
            """), [first, last], into: &exchanges) { exchange, row in exchange.events.append(try RowReader.positionalEvent(row)) }
    }

    /// Reads the stream column and the messages of the exchanges in `first...last` that streamed (few do: one
    /// query for the column over the range, one per streaming exchange for its messages). A store older than v7
    /// has none.
    static func attachStreams(to exchanges: inout [TraceExchange], from first: Int64, through last: Int64,
                              in db: Database) throws {
        guard try db.columns(in: "exchange").contains(where: { $0.name == "stream" }) else { return }
        let rows = try Row.fetchAll(db, sql: """
            SELECT sequence, stream FROM exchange WHERE sequence BETWEEN ? AND ? AND stream IS NOT NULL
            """, arguments: [first, last])
        try attachStreams(rows, to: &exchanges, columns: RowReader.messageColumns, in: db)
    }

    /// The messages without their payloads and event ids (``RowReader/messageColumns`` with those read as
    /// empty): what the timeline's ticks and the metrics' stream figures use, a few bytes a message.
    static let messageTimeColumns = "idx, direction, at, type, size, NULL, truncated, NULL"

    /// Attaches the streams of exactly the exchanges whose sequences `sequencesJSON` lists, their messages
    /// without payloads (``messageTimeColumns``): for the activity reads.
    static func attachStreamTimes(to exchanges: inout [TraceExchange], sequencesJSON: String, in db: Database) throws {
        guard try db.columns(in: "exchange").contains(where: { $0.name == "stream" }) else { return }
        let rows = try Row.fetchAll(db, sql: """
            SELECT sequence, stream FROM exchange
            WHERE sequence IN (SELECT value FROM json_each(?)) AND stream IS NOT NULL
            """, arguments: [sequencesJSON])
        try attachStreams(rows, to: &exchanges, columns: messageTimeColumns, in: db)
    }

    /// As ``attachStreamTimes(to:sequencesJSON:in:)`` for the exchanges in `first...last`.
    static func attachStreamTimes(to exchanges: inout [TraceExchange], from first: Int64, through last: Int64,
                                  in db: Database) throws {
        guard try db.columns(in: "exchange").contains(where: { $0.name == "stream" }) else { return }
        let rows = try Row.fetchAll(db, sql: """
            SELECT sequence, stream FROM exchange WHERE sequence BETWEEN ? AND ? AND stream IS NOT NULL
            """, arguments: [first, last])
        try attachStreams(rows, to: &exchanges, columns: messageTimeColumns, in: db)
    }

    /// Gives the exchanges in `first...last` that streamed their stream's header, without messages.
    static func attachStreamHeaders(to exchanges: inout [TraceExchange], from first: Int64, through last: Int64,
                                    in db: Database) throws {
        guard try db.columns(in: "exchange").contains(where: { $0.name == "stream" }) else { return }
        var positions: [Int64: Int] = [:]
        for (position, exchange) in exchanges.enumerated() { if let sequence = exchange.sequence { positions[sequence] = position } }
        for row in try Row.fetchAll(db, sql: """
            SELECT sequence, stream FROM exchange WHERE sequence BETWEEN ? AND ? AND stream IS NOT NULL
            """, arguments: [first, last]) {
            guard let sequence = row[0] as Int64?, let position = positions[sequence],
                  let header = RowReader.streamHeader(row[1]) else { continue }
            exchanges[position].stream = TraceStream(header, messages: [])
        }
    }

    /// Reads the messages (`columns` of them) of each `(sequence, stream)` row into its exchange.
    private static func attachStreams(_ rows: [Row], to exchanges: inout [TraceExchange], columns: String,
                                      in db: Database) throws {
        guard !rows.isEmpty else { return }
        var positions: [Int64: Int] = [:]
        for (position, exchange) in exchanges.enumerated() { if let sequence = exchange.sequence { positions[sequence] = position } }
        for row in rows {
            guard let sequence = row[0] as Int64?, let position = positions[sequence],
                  let header = RowReader.streamHeader(row[1]) else { continue }
            let messages = try RowReader.messages(of: sequence, columns: columns, in: db)
            exchanges[position].stream = TraceStream(header, messages: messages)
        }
    }

    /// Attaches the attempts and events of exactly the exchanges whose sequences `sequencesJSON` lists (a JSON
    /// array): for scattered rows, where a range would read everything between them.
    static func attachAttemptsAndEvents(to exchanges: inout [TraceExchange], sequencesJSON: String,
                                        in db: Database) throws {
        let hasNotes = try db.columns(in: "attempt").contains { $0.name == "notes" }
        try merge(db.cachedStatement(sql: """
            SELECT \(RowReader.positionalAttemptColumns(hasNotes: hasNotes)) FROM attempt
            WHERE exchange_sequence IN (SELECT value FROM json_each(?)) ORDER BY exchange_sequence, number, rowid
            """), [sequencesJSON], into: &exchanges) { exchange, row in exchange.attempts.append(RowReader.positionalAttempt(row)) }
        try merge(db.cachedStatement(sql: """
            SELECT \(RowReader.positionalEventColumns) FROM event
            WHERE exchange_sequence IN (SELECT value FROM json_each(?)) ORDER BY exchange_sequence, rowid
            """), [sequencesJSON], into: &exchanges) { exchange, row in exchange.events.append(try RowReader.positionalEvent(row)) }
    }

    /// Walks the rows of `statement`, ordered by `exchange_sequence` (column 0), alongside exchanges ordered by
    /// sequence; `add` reads the row the statement is on.
    private static func merge(_ statement: Statement, _ arguments: StatementArguments,
                              into exchanges: inout [TraceExchange],
                              _ add: (inout TraceExchange, Statement) throws -> Void) throws {
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        var index = exchanges.startIndex
        while try rows.next() != nil {
            guard let sequence = RowReader.sequence(RowReader.column(0, of: statement)) else { continue }
            while index < exchanges.endIndex, (exchanges[index].sequence ?? .min) < sequence { index += 1 }
            guard index < exchanges.endIndex else { return }
            if exchanges[index].sequence == sequence { try add(&exchanges[index], statement) }
        }
    }

    private static func jsonList(_ sequences: ArraySlice<Int64>) -> String {
        "[" + sequences.map(String.init).joined(separator: ",") + "]"
    }
}
