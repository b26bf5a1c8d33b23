import Foundation
import GRDB
import Loupe

/// Turns trace values into statement arguments for ``SQLiteTraceStore/write(_:)``.
///
/// Dates and UUIDs are converted by hand: GRDB's defaults (date strings, UUID blobs) would make the file harder to
/// query with plain SQL.
struct RowWriter {
    static let insertExchange = """
        INSERT INTO exchange (
            id, started_at, ended_at, duration, operation, method, url, host, path, status, outcome, error,
            attempt_count, replay_of, request_headers, request_body, request_body_size, request_body_truncated,
            response_headers, response_body, response_body_size, response_body_truncated, stored_at, stored_bytes)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let insertAttempt = """
        INSERT INTO attempt (
            exchange_sequence, number, started_at, request_sent_at, first_byte_at, ended_at, status, error,
            circuit_state, retry_reason, retry_delay, notes)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let insertEvent = "INSERT INTO event (exchange_sequence, kind, at, message, attributes) VALUES (?, ?, ?, ?, ?)"

    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The values for ``insertExchange``; `storedAt` is when the store wrote it (bounds age from it).
    func exchangeArguments(_ exchange: TraceExchange, storedAt: Date) throws -> StatementArguments {
        let components = URLComponents(string: exchange.url)
        let values: [(any DatabaseValueConvertible)?] = [
            exchange.id.uuidString, exchange.startedAt.timeIntervalSince1970, exchange.endedAt?.timeIntervalSince1970,
            exchange.duration, exchange.operation, exchange.method, exchange.url, components?.host ?? "",
            components?.percentEncodedPath ?? "", exchange.status, exchange.outcome.rawValue, exchange.error,
            exchange.attempts.count, exchange.replayOf?.uuidString,
            try json(exchange.requestHeaders), exchange.requestBody?.data, exchange.requestBody?.size,
            exchange.requestBody?.isTruncated,
            try json(exchange.responseHeaders), exchange.responseBody?.data, exchange.responseBody?.size,
            exchange.responseBody?.isTruncated, storedAt.timeIntervalSince1970, exchange.storedByteCount,
        ]
        return StatementArguments(values)
    }

    func attemptArguments(_ attempt: TraceAttempt, sequence: Int64) throws -> StatementArguments {
        let values: [(any DatabaseValueConvertible)?] = [
            sequence, attempt.number, attempt.startedAt.timeIntervalSince1970,
            attempt.requestSentAt?.timeIntervalSince1970, attempt.firstByteAt?.timeIntervalSince1970,
            attempt.endedAt?.timeIntervalSince1970, attempt.status, attempt.error, attempt.circuitState,
            attempt.retryReason, attempt.retryDelay, attempt.notes.isEmpty ? nil : try json(attempt.notes),
        ]
        return StatementArguments(values)
    }

    func eventArguments(_ event: TraceEvent, sequence: Int64) throws -> StatementArguments {
        let values: [(any DatabaseValueConvertible)?] = [
            sequence, event.kind, event.at.timeIntervalSince1970, event.message, try json(event.attributes),
        ]
        return StatementArguments(values)
    }

    private func json(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// Turns rows back into trace values.
enum RowReader {
    static let summaryColumns = """
        sequence, id, operation, method, url, started_at, duration, outcome, status, error, attempt_count, replay_of
        """

    static func summary(_ row: Row) -> TraceSummary {
        TraceSummary(
            id: uuid(row["id"]) ?? UUID(), sequence: row["sequence"], operation: row["operation"],
            method: row["method"], url: row["url"], startedAt: date(row["started_at"]) ?? .distantPast,
            duration: row["duration"], outcome: outcome(row["outcome"]), status: row["status"], error: row["error"],
            attemptCount: row["attempt_count"], replayOf: uuid(row["replay_of"]))
    }

    static func exchange(_ row: Row, attempts: [TraceAttempt], events: [TraceEvent]) throws -> TraceExchange {
        TraceExchange(
            id: uuid(row["id"]) ?? UUID(), sequence: row["sequence"], operation: row["operation"],
            method: row["method"], url: row["url"], startedAt: date(row["started_at"]) ?? .distantPast,
            endedAt: date(row["ended_at"]), outcome: outcome(row["outcome"]), status: row["status"],
            error: row["error"], requestHeaders: try headers(row["request_headers"]),
            requestBody: body(row, prefix: "request"), responseHeaders: try headers(row["response_headers"]),
            responseBody: body(row, prefix: "response"), attempts: attempts, events: events,
            replayOf: uuid(row["replay_of"]))
    }

    static func attempt(_ row: Row) -> TraceAttempt {
        TraceAttempt(
            number: row["number"], startedAt: date(row["started_at"]) ?? .distantPast,
            requestSentAt: date(row["request_sent_at"]), firstByteAt: date(row["first_byte_at"]),
            endedAt: date(row["ended_at"]), status: row["status"], error: row["error"],
            circuitState: row["circuit_state"], retryReason: row["retry_reason"], retryDelay: row["retry_delay"],
            notes: notes(row["notes"]))
    }

    /// The notes column: a JSON object of strings, or `NULL`. Anything else (a hand-edited row) reads as none
    /// rather than failing the whole exchange.
    static func notes(_ text: String?) -> [String: String] {
        guard let text else { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }

    static func event(_ row: Row) throws -> TraceEvent {
        let attributes: String = row["attributes"]
        return TraceEvent(
            kind: row["kind"], at: date(row["at"]) ?? .distantPast, message: row["message"],
            attributes: try JSONDecoder().decode([String: String].self, from: Data(attributes.utf8)))
    }

    /// A body exists when its size column is set; SQLite may store an empty blob as NULL.
    private static func body(_ row: Row, prefix: String) -> TraceBody? {
        guard let size: Int = row["\(prefix)_body_size"] else { return nil }
        let data: Data? = row["\(prefix)_body"]
        let truncated: Bool? = row["\(prefix)_body_truncated"]
        return TraceBody(data: data ?? Data(), size: size, isTruncated: truncated ?? false)
    }

    private static func headers(_ text: String) throws -> [TraceHeader] {
        try JSONDecoder().decode([TraceHeader].self, from: Data(text.utf8))
    }

    private static func date(_ seconds: Double?) -> Date? {
        seconds.map { Date(timeIntervalSince1970: $0) }
    }

    private static func uuid(_ text: String?) -> UUID? {
        text.flatMap(UUID.init(uuidString:))
    }

    /// Unknown outcomes (from a hand-edited file) read as client errors rather than failing the whole list.
    private static func outcome(_ text: String) -> ExchangeOutcome {
        ExchangeOutcome(rawValue: text) ?? .clientError
    }
}
