import Foundation
import GRDB
import Loupe

/// Binds trace values to the store's inserts for ``SQLiteTraceStore/write(_:)``, one column after another in the
/// order of the statements' column lists.
///
/// Dates and UUIDs are converted by hand: GRDB's defaults (date strings, UUID blobs) would make the file harder to
/// query with plain SQL.
package struct RowWriter {
    package init() {}

    static let insertExchange = insertExchanges(1)
    /// ``insertExchanges(_:)`` for ``ExchangeInserter/exchangesPerInsert`` rows, made once (GRDB caches the
    /// statement by this text).
    static let insertExchangeGroup = insertExchanges(ExchangeInserter.exchangesPerInsert)
    /// ``insertExchange`` for `count` rows in one statement.
    ///
    /// `OR FAIL`: a row that breaks a constraint stops the statement and keeps the rows before it, so SQLite
    /// needs no statement journal to undo them. With `ABORT` (the default) every multi-row statement copied the
    /// original of each page it changed (the table's and every index's) into a journal (kept in memory,
    /// not a temp file) and freed it at the end, a large share of each exchange's insert. ``ExchangeInserter`` knows
    /// what to do with the rows kept when an id collides.
    static func insertExchanges(_ count: Int) -> String {
        let row = "(" + Array(repeating: "?", count: 27).joined(separator: ", ") + ")"
        return """
            INSERT OR FAIL INTO exchange (
                id, started_at, ended_at, duration, operation, method, url, host, path, status, outcome, error,
                attempt_count, replay_of, request_headers, request_body, request_body_size, request_body_truncated,
                response_headers, response_body, response_body_size, response_body_truncated, stored_at, stored_bytes,
                source, stream, before_rule)
            VALUES \(Array(repeating: row, count: count).joined(separator: ", "))
            """
    }
    package static let insertAttempt = insertAttempts(1)
    /// ``insertAttempt`` for `count` rows in one statement; `OR FAIL` as ``insertExchanges(_:)`` (any failure here
    /// fails the whole transaction).
    static func insertAttempts(_ count: Int) -> String {
        let row = "(" + Array(repeating: "?", count: 12).joined(separator: ", ") + ")"
        return """
            INSERT OR FAIL INTO attempt (
                exchange_sequence, number, started_at, request_sent_at, first_byte_at, ended_at, status, error,
                circuit_state, retry_reason, retry_delay, notes)
            VALUES \(Array(repeating: row, count: count).joined(separator: ", "))
            """
    }
    package static let insertEvent = "INSERT INTO event (exchange_sequence, kind, at, message, attributes) VALUES (?, ?, ?, ?, ?)"

    /// Binds the values for ``insertExchange``: `storedAt` is when the store wrote it (bounds age from it).
    func bindExchange(_ exchange: TraceExchange, storedAt: Date, to row: inout SQLiteRow) {
        row.add(idOf: exchange.id)
        row.add(exchange.startedAt.timeIntervalSince1970)
        row.add(exchange.endedAt?.timeIntervalSince1970)
        row.add(exchange.duration)
        row.add(exchange.operation)
        row.add(exchange.method)
        row.add(urlWithHostAndPath: exchange.url)
        row.add(exchange.status)
        row.add(exchange.outcome.rawValue)
        row.add(exchange.error)
        row.add(exchange.attempts.count)
        row.add(exchange.replayOf.map(StoredUUID.text(of:)))
        row.add(jsonOf: exchange.requestHeaders)
        row.add(exchange.requestBody?.data)
        row.add(exchange.requestBody?.size)
        row.add(exchange.requestBody?.isTruncated)
        row.add(jsonOf: exchange.responseHeaders)
        row.add(exchange.responseBody?.data)
        row.add(exchange.responseBody?.size)
        row.add(exchange.responseBody?.isTruncated)
        row.add(storedAt.timeIntervalSince1970)
        row.add(exchange.storedByteCount)
        row.add(exchange.source?.storedText)
        row.add(exchange.stream?.header.storedText)
        row.add(exchange.beforeRule?.storedText)
    }

    package static let insertMessage = """
        INSERT INTO message (exchange_sequence, idx, direction, at, type, size, payload, truncated, event_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    package func bindMessage(_ message: TraceMessage, sequence: Int64, to row: inout SQLiteRow) {
        row.add(sequence)
        row.add(message.index)
        row.add(message.direction.rawValue)
        row.add(message.at.timeIntervalSince1970)
        row.add(message.type)
        row.add(message.size)
        row.add(message.payload)
        row.add(message.isTruncated)
        row.add(message.eventID)
    }

    package func bindAttempt(_ attempt: TraceAttempt, sequence: Int64, notes: String?, to row: inout SQLiteRow) {
        row.add(sequence)
        row.add(attempt.number)
        row.add(attempt.startedAt.timeIntervalSince1970)
        row.add(attempt.requestSentAt?.timeIntervalSince1970)
        row.add(attempt.firstByteAt?.timeIntervalSince1970)
        row.add(attempt.endedAt?.timeIntervalSince1970)
        row.add(attempt.status)
        row.add(attempt.error)
        row.add(attempt.circuitState)
        row.add(attempt.retryReason)
        row.add(attempt.retryDelay)
        row.add(notes)
    }

    package func bindEvent(_ event: TraceEvent, sequence: Int64, attributes: String, to row: inout SQLiteRow) {
        row.add(sequence)
        row.add(event.kind.rawValue)
        row.add(event.at.timeIntervalSince1970)
        row.add(event.message)
        row.add(attributes)
    }

    /// The notes column of `attempt`: its notes as a JSON object, `NULL` when it has none.
    package func notes(of attempt: TraceAttempt) -> String? {
        attempt.notes.isEmpty ? nil : StoredJSON.text(of: attempt.notes)
    }

    /// The attributes column of `event`, a JSON object.
    package func attributes(of event: TraceEvent) -> String {
        StoredJSON.text(of: event.attributes)
    }
}
