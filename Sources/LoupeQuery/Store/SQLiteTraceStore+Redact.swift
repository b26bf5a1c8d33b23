import Foundation
import GRDB
import LoupeTrace

/// What ``SQLiteTraceStore/redactStored(with:)`` did.
public struct StoreRedactionResult: Sendable, Hashable {
    /// Exchanges read.
    public var examined: Int
    /// Exchanges rewritten because the policy removed something from them.
    public var changed: Int
    /// Whether the old copies are gone from the file and its `-wal`: `false` when another connection (a
    /// recorder or viewer still open) kept the final checkpoint from finishing; running again once it has
    /// closed finishes the job.
    public var isComplete: Bool

    public init(examined: Int, changed: Int, isComplete: Bool) {
        self.examined = examined
        self.changed = changed
        self.isComplete = isComplete
    }
}

extension SQLiteTraceStore {
    /// Applies `policy` again to every stored exchange, in place, and leaves no old copy of what it removed.
    ///
    /// The rewritten rows are written in one transaction with `PRAGMA secure_delete` on (SQLite zeroes the
    /// space the old values took), so a crash leaves either the old store or the new one. Then `VACUUM`
    /// rebuilds the file from the live rows (no free page keeps anything, not even rows pruned long ago), and
    /// `wal_checkpoint(TRUNCATE)` moves everything into the main file and empties the `-wal` file. Sequences,
    /// ids and storage times are kept; the `stored_bytes` of a rewritten exchange is recomputed.
    public func redactStored(with policy: RedactionPolicy) throws -> StoreRedactionResult {
        guard !isReadOnly else { throw TraceStoreError.readOnly(path, "it was opened read-only") }
        return try guarded {
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA secure_delete = ON")
                defer { try? db.execute(sql: "PRAGMA secure_delete = OFF") }
                var result = StoreRedactionResult(examined: 0, changed: 0, isComplete: false)
                try db.inTransaction(.immediate) {
                    let sequences = try Int64.fetchAll(db, sql: "SELECT sequence FROM exchange ORDER BY sequence")
                    let rewriter = try RedactionRewriter(db)
                    for sequence in sequences {
                        guard let row = try Row.fetchOne(
                            db, sql: "SELECT * FROM exchange WHERE sequence = ?", arguments: [sequence]) else { continue }
                        let exchange = try Self.fullExchange(row, in: db)
                        result.examined += 1
                        let redacted = policy.redact(exchange: exchange)
                        guard redacted != exchange else { continue }
                        try rewriter.rewrite(redacted, sequence: sequence)
                        result.changed += 1
                    }
                    return .commit
                }
                // The rows still waiting for the search index are indexed now, as rewritten, rather than when the
                // store closes: that would write to the log after the checkpoint below has emptied it.
                try db.inTransaction {
                    while try !SearchIndex.indexNewer(in: db, rowLimit: 1_000, byteLimit: .max).caughtUp {}
                    return .commit
                }
                guard result.changed > 0 else {
                    result.isComplete = try Self.checkpoint(db)
                    return result
                }
                try db.execute(sql: "VACUUM")
                result.isComplete = try Self.checkpoint(db)
                return result
            }
        }
    }

    /// Moves every WAL frame into the database and truncates the `-wal` file; `false` when a reader held it back.
    private static func checkpoint(_ db: Database) throws -> Bool {
        guard let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") else { return false }
        let busy: Int = row[0]
        return busy == 0
    }
}

/// Rewrites one exchange's row, attempts and events in place (same sequence), for re-redaction.
private struct RedactionRewriter {
    private let update: Statement
    private let deleteAttempts: Statement
    private let deleteEvents: Statement
    private let insertAttempt: SQLiteInsert
    private let insertEvent: SQLiteInsert
    private let updateStream: Statement
    private let deleteMessages: Statement
    private let insertMessage: SQLiteInsert
    private let rows = RowWriter()

    init(_ db: Database) throws {
        update = try db.makeStatement(sql: """
            UPDATE exchange SET operation = ?, url = ?, host = ?, path = ?, error = ?, request_headers = ?,
                request_body = ?, response_headers = ?, response_body = ?, stored_bytes = ?, before_rule = ?
            WHERE sequence = ?
            """)
        deleteAttempts = try db.makeStatement(sql: "DELETE FROM attempt WHERE exchange_sequence = ?")
        deleteEvents = try db.makeStatement(sql: "DELETE FROM event WHERE exchange_sequence = ?")
        insertAttempt = try SQLiteInsert(db, sql: RowWriter.insertAttempt)
        insertEvent = try SQLiteInsert(db, sql: RowWriter.insertEvent)
        updateStream = try db.makeStatement(sql: "UPDATE exchange SET stream = ? WHERE sequence = ?")
        deleteMessages = try db.makeStatement(sql: "DELETE FROM message WHERE exchange_sequence = ?")
        insertMessage = try SQLiteInsert(db, sql: RowWriter.insertMessage)
    }

    func rewrite(_ exchange: TraceExchange, sequence: Int64) throws {
        let (host, path) = StoredURLParts.hostAndPath(of: exchange.url)
        let values: [(any DatabaseValueConvertible)?] = [
            exchange.operation, exchange.url, host, path, exchange.error,
            StoredJSON.text(of: exchange.requestHeaders), exchange.requestBody?.data,
            StoredJSON.text(of: exchange.responseHeaders), exchange.responseBody?.data, exchange.storedByteCount,
            exchange.beforeRule?.storedText, sequence,
        ]
        try update.execute(arguments: StatementArguments(values))
        // Attempts and events go back in their order (rowid order is their order when read).
        try deleteAttempts.execute(arguments: [sequence])
        for attempt in exchange.attempts {
            let notes = rows.notes(of: attempt)
            try insertAttempt.insert { rows.bindAttempt(attempt, sequence: sequence, notes: notes, to: &$0) }
        }
        try deleteEvents.execute(arguments: [sequence])
        for event in exchange.events {
            let attributes = rows.attributes(of: event)
            try insertEvent.insert { rows.bindEvent(event, sequence: sequence, attributes: attributes, to: &$0) }
        }
        // A stream's messages are redacted like bodies (the close reason too).
        guard let stream = exchange.stream else { return }
        try updateStream.execute(arguments: [stream.header.storedText, sequence])
        try deleteMessages.execute(arguments: [sequence])
        for message in stream.messages {
            try insertMessage.insert { rows.bindMessage(message, sequence: sequence, to: &$0) }
        }
    }
}
