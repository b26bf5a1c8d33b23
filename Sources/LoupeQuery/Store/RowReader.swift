import Foundation
import GRDB
import Loupe
import LoupeTrace

/// Turns rows back into trace values.
///
/// Columns are read leniently, whatever version (or hand) wrote them: SQLite keeps any value in any column, and
/// GRDB's typed subscripts stop the process on a value they cannot convert (an `INTEGER` column holding `1e300`,
/// text in a `REAL` one). A value of the wrong type reads as absent, and times and durations pass through
/// ``TraceTime``, so every reader and renderer downstream meets finite numbers of sane size.
enum RowReader {
    static let summaryColumns = """
        sequence, id, operation, method, url, host, path, started_at, duration, outcome, status, error, attempt_count, replay_of,
        response_body_size, \(sourceAppColumn), exchange.stream
        """

    /// The source's app name (schema v6). `json_valid` first: a hand-edited value that is not JSON reads as none
    /// rather than failing the whole page.
    static let sourceAppColumn =
        "CASE WHEN json_valid(exchange.source) THEN json_extract(exchange.source, '$.app') END"

    /// ``summaryColumns`` for a store opened read-only before v6 (no `source` column) or v7 (no `stream`): NULL in
    /// the missing ones' places.
    static func summaryColumns(source: Bool, stream: Bool) -> String {
        var columns = summaryColumns
        if !source { columns = columns.replacingOccurrences(of: sourceAppColumn, with: "NULL") }
        if !stream { columns = columns.replacingOccurrences(of: "exchange.stream", with: "NULL") }
        return columns
    }

    /// A row selected with ``summaryColumns``, read by position (a name costs a lookup on every row, and lists read
    /// many rows).
    static func summary(_ row: Row) -> TraceSummary {
        func value(_ index: Int) -> DatabaseValue { row[index] }
        return TraceSummary(
            id: text(value(1)).flatMap(StoredUUID.parse) ?? UUID(), sequence: int64(value(0)) ?? 0,
            operation: text(value(2)) ?? "", method: text(value(3)) ?? "", url: text(value(4)) ?? "",
            startedAt: TraceTime.clampedInstant(double(value(7))) ?? .distantPast,
            duration: TraceTime.clampedDuration(double(value(8))), outcome: outcome(text(value(9))),
            status: int(value(10)), error: text(value(11)), attemptCount: max(0, int(value(12)) ?? 0),
            replayOf: text(value(13)).flatMap(StoredUUID.parse), host: text(value(5)), path: text(value(6)),
            responseBodySize: int(value(14)), sourceApp: row.count > 15 ? text(value(15)) : nil,
            // Only a stream's row has the column (a few hundred bytes of JSON): the list shows what the stream did.
            stream: row.count > 16 ? streamHeader(text(value(16))).map { TraceStream($0, messages: []) } : nil)
    }

    static func exchange(_ row: Row, attempts: [TraceAttempt], events: [TraceEvent]) throws -> TraceExchange {
        TraceExchange(
            id: uuid(row, "id") ?? UUID(), sequence: int64(row, "sequence"), operation: text(row, "operation") ?? "",
            method: text(row, "method") ?? "", url: text(row, "url") ?? "",
            startedAt: date(row, "started_at") ?? .distantPast, endedAt: date(row, "ended_at"),
            outcome: outcome(text(row, "outcome")), status: int(row, "status"), error: text(row, "error"),
            requestHeaders: try headers(text(row, "request_headers")), requestBody: body(row, prefix: "request"),
            responseHeaders: try headers(text(row, "response_headers")), responseBody: body(row, prefix: "response"),
            attempts: attempts, events: events, replayOf: uuid(row, "replay_of"),
            source: row.hasColumn("source") ? source(text(row, "source")) : nil,  // none in a v5 store opened read-only
            stream: row.hasColumn("stream") ? streamHeader(text(row, "stream")).map { TraceStream($0, messages: []) } : nil,
            beforeRule: row.hasColumn("before_rule") ? TraceRequest.stored(text(row, "before_rule")) : nil)  // none before v10
    }

    /// The stream column, or nil (`NULL`, or a hand-edited row that does not read).
    static func streamHeader(_ text: String?) -> TraceStream.Header? {
        guard let text else { return nil }
        return try? JSONDecoder().decode(TraceStream.Header.self, from: Data(text.utf8))
    }

    /// The columns ``message(_:)`` reads, in its order.
    static let messageColumns = "idx, direction, at, type, size, payload, truncated, event_id"

    static func message(_ row: Row) -> TraceMessage {
        message { row[$0] }
    }

    /// As ``message(_:)`` for the row `statement` is on, read in place (no `Row` copied per message).
    static func message(_ statement: Statement) -> TraceMessage {
        message { column($0, of: statement) }
    }

    private static func message(_ value: (Int) -> DatabaseValue) -> TraceMessage {
        TraceMessage(
            index: int(value(0)) ?? 0, direction: MessageDirection(rawValue: text(value(1)) ?? "") ?? .received,
            at: TraceTime.clampedInstant(double(value(2))) ?? .distantPast, type: text(value(3)) ?? "",
            size: max(0, int(value(4)) ?? 0), payload: Data.fromDatabaseValue(value(5)) ?? Data(),
            isTruncated: (int(value(6)) ?? 0) != 0, eventID: text(value(7)))
    }

    /// Every message of the exchange stored as `sequence`, in order, `columns` of each (``messageColumns``, or
    /// fewer with NULLs in their places), read from a cursor: `Row.fetchAll` copied each row with its column
    /// names, which took most of the time a 100,000-message stream needed to open.
    static func messages(of sequence: Int64, columns: String = messageColumns, in db: Database) throws -> [TraceMessage] {
        let statement = try db.cachedStatement(sql: "SELECT \(columns) FROM message WHERE exchange_sequence = ? ORDER BY idx")
        let rows = try Row.fetchCursor(statement, arguments: [sequence])
        var messages: [TraceMessage] = []
        while try rows.next() != nil { messages.append(message(statement)) }
        return messages
    }

    /// The source column: `{"app","host","pid"}`, or `NULL`. Anything else (a hand-edited row) reads as none.
    static func source(_ text: String?) -> TraceSource? {
        guard let text else { return nil }
        return try? JSONDecoder().decode(TraceSource.self, from: Data(text.utf8))
    }

    static func attempt(_ row: Row) -> TraceAttempt {
        TraceAttempt(
            number: int(row, "number") ?? 0, startedAt: date(row, "started_at") ?? .distantPast,
            requestSentAt: date(row, "request_sent_at"), firstByteAt: date(row, "first_byte_at"),
            endedAt: date(row, "ended_at"), status: int(row, "status"), error: text(row, "error"),
            circuitState: text(row, "circuit_state"), retryReason: text(row, "retry_reason"),
            retryDelay: TraceTime.clampedDuration(double(row, "retry_delay")),
            notes: row.hasColumn("notes") ? notes(text(row, "notes")) : [:])  // a v1 or v2 store opened read-only has none
    }

    /// The notes column: a JSON object of strings, or `NULL`. Anything else (a hand-edited row) reads as none
    /// rather than failing the whole exchange.
    static func notes(_ text: String?) -> [String: String] {
        StoredJSON.notes(text)
    }

    static func event(_ row: Row) throws -> TraceEvent {
        TraceEvent(
            kind: ExchangeEventKind(rawValue: text(row, "kind") ?? ""), at: date(row, "at") ?? .distantPast, message: text(row, "message") ?? "",
            attributes: try StoredJSON.attributes(text(row, "attributes")))
    }

    /// A body exists when its size column is set; SQLite may store an empty blob as NULL.
    private static func body(_ row: Row, prefix: String) -> TraceBody? {
        guard let size = int(row, "\(prefix)_body_size") else { return nil }
        let data: Data?
        switch (row["\(prefix)_body"] as DatabaseValue).storage {
        case .blob(let blob): data = blob
        case .string(let string): data = Data(string.utf8)
        default: data = nil
        }
        let truncated = int(row, "\(prefix)_body_truncated").map { $0 != 0 } ?? false
        return TraceBody(data: data ?? Data(), size: size, isTruncated: truncated)
    }

    private static func headers(_ text: String?) throws -> [TraceHeader] {
        try StoredJSON.headers(text)
    }

    // MARK: Columns

    /// Times as stored by any version, brought into ``TraceTime/range`` (not-a-number reads as unknown).
    private static func date(_ row: Row, _ column: String) -> Date? {
        TraceTime.clampedInstant(double(row, column))
    }

    private static func double(_ row: Row, _ column: String) -> Double? { double(row[column]) }
    private static func int64(_ row: Row, _ column: String) -> Int64? { int64(row[column]) }
    private static func int(_ row: Row, _ column: String) -> Int? { int(row[column]) }
    private static func text(_ row: Row, _ column: String) -> String? { text(row[column]) }

    private static func double(_ value: DatabaseValue) -> Double? {
        switch value.storage {
        case .int64(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    private static func int64(_ value: DatabaseValue) -> Int64? {
        switch value.storage {
        case .int64(let value): value
        case .double(let value): Int64(exactly: value.rounded(.towardZero))
        default: nil
        }
    }

    private static func int(_ value: DatabaseValue) -> Int? {
        int64(value).flatMap { Int(exactly: $0) }
    }

    private static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .string(let value): value
        case .blob(let value): String(decoding: value, as: UTF8.self)
        case .int64(let value): String(value)
        case .double(let value): String(value)
        case .null: nil
        }
    }

    private static func uuid(_ row: Row, _ column: String) -> UUID? {
        text(row, column).flatMap(StoredUUID.parse)
    }

    /// Unknown outcomes (from a hand-edited file) read as client errors rather than failing the whole list.
    private static func outcome(_ text: String?) -> ExchangeOutcome {
        text.flatMap(ExchangeOutcome.init(rawValue:)) ?? .clientError
    }
}

// MARK: Reading by column position

/// The same readings as ``RowReader/exchange(_:attempts:events:)``, ``RowReader/attempt(_:)`` and
/// ``RowReader/event(_:)`` for rows selected with the column lists below, read by position rather than by name
/// (a name costs a lookup on every row), with the JSON columns read by ``StoredJSON`` when they have the shape
/// Loupe writes: what batched reads of many rows (export) need.
extension RowReader {
    /// The columns ``positionalExchange(_:attempts:events:)`` reads, in its order.
    static let positionalExchangeColumns = """
        sequence, id, operation, method, url, started_at, ended_at, outcome, status, error, replay_of,
        request_headers, request_body, request_body_size, request_body_truncated,
        response_headers, response_body, response_body_size, response_body_truncated
        """

    /// ``positionalExchangeColumns`` with the response's headers and body left unread (`NULL`): a request's side.
    static let positionalRequestColumns = """
        sequence, id, operation, method, url, started_at, ended_at, outcome, status, error, replay_of,
        request_headers, request_body, request_body_size, request_body_truncated,
        NULL, NULL, NULL, NULL
        """

    /// The columns ``positionalAttempt(_:)`` reads, after `exchange_sequence`; `notes` (schema v3) is `NULL` in an
    /// older store opened read-only.
    static func positionalAttemptColumns(hasNotes: Bool) -> String {
        """
        exchange_sequence, number, started_at, request_sent_at, first_byte_at, ended_at, status, error, circuit_state,
        retry_reason, retry_delay, \(hasNotes ? "notes" : "NULL")
        """
    }

    /// The columns ``positionalEvent(_:)`` reads, after `exchange_sequence`.
    static let positionalEventColumns = "exchange_sequence, kind, at, message, attributes"

    static func positionalExchange(_ row: Row, attempts: [TraceAttempt], events: [TraceEvent]) throws -> TraceExchange {
        try positionalExchange({ row[$0] }, attempts: attempts, events: events)
    }

    /// As ``positionalExchange(_:attempts:events:)`` for the row `statement` is on: GRDB's typed `Row` subscript
    /// looks up generic metadata for every column read, which was a tenth of an export.
    static func positionalExchange(_ statement: Statement, attempts: [TraceAttempt], events: [TraceEvent]) throws
        -> TraceExchange {
        try positionalExchange({ column($0, of: statement) }, attempts: attempts, events: events)
    }

    /// As above, with the header lists read by `headers` (given each list's text, and whether it is the request's).
    static func positionalExchange(_ statement: Statement, attempts: [TraceAttempt], events: [TraceEvent],
                                   headers: (String?, Bool) throws -> [TraceHeader]) throws -> TraceExchange {
        try positionalExchange({ column($0, of: statement) }, attempts: attempts, events: events, headers: headers)
    }

    /// Column `index` of the row `statement` is on, read as GRDB reads it into a `DatabaseValue`.
    static func column(_ index: Int, of statement: Statement) -> DatabaseValue {
        DatabaseValue(sqliteStatement: statement.sqliteStatement, index: CInt(index))
    }

    private static func positionalExchange(_ value: (Int) -> DatabaseValue, attempts: [TraceAttempt],
                                           events: [TraceEvent],
                                           headers: (String?, Bool) throws -> [TraceHeader] = { text, _ in
                                               try StoredJSON.headers(text)
                                           }) throws -> TraceExchange {
        TraceExchange(
            id: text(value(1)).flatMap(StoredUUID.parse) ?? UUID(), sequence: int64(value(0)),
            operation: text(value(2)) ?? "", method: text(value(3)) ?? "", url: text(value(4)) ?? "",
            startedAt: TraceTime.clampedInstant(double(value(5))) ?? .distantPast,
            endedAt: TraceTime.clampedInstant(double(value(6))), outcome: outcome(text(value(7))),
            status: int(value(8)), error: text(value(9)),
            requestHeaders: try headers(text(value(11)), true),
            requestBody: body(value(12), size: value(13), truncated: value(14)),
            responseHeaders: try headers(text(value(15)), false),
            responseBody: body(value(16), size: value(17), truncated: value(18)),
            attempts: attempts, events: events, replayOf: text(value(10)).flatMap(StoredUUID.parse))
    }

    static func positionalAttempt(_ row: Row) -> TraceAttempt {
        positionalAttempt { row[$0] }
    }

    static func positionalAttempt(_ statement: Statement) -> TraceAttempt {
        positionalAttempt { column($0, of: statement) }
    }

    private static func positionalAttempt(_ value: (Int) -> DatabaseValue) -> TraceAttempt {
        func date(_ index: Int) -> Date? { TraceTime.clampedInstant(double(value(index))) }
        return TraceAttempt(
            number: int(value(1)) ?? 0, startedAt: date(2) ?? .distantPast, requestSentAt: date(3),
            firstByteAt: date(4), endedAt: date(5), status: int(value(6)), error: text(value(7)),
            circuitState: text(value(8)), retryReason: text(value(9)),
            retryDelay: TraceTime.clampedDuration(double(value(10))), notes: StoredJSON.notes(text(value(11))))
    }

    static func positionalEvent(_ row: Row) throws -> TraceEvent {
        try positionalEvent { row[$0] }
    }

    static func positionalEvent(_ statement: Statement) throws -> TraceEvent {
        try positionalEvent { column($0, of: statement) }
    }

    private static func positionalEvent(_ value: (Int) -> DatabaseValue) throws -> TraceEvent {
        TraceEvent(
            kind: ExchangeEventKind(rawValue: text(value(1)) ?? ""),
            at: TraceTime.clampedInstant(double(value(2))) ?? .distantPast, message: text(value(3)) ?? "",
            attributes: try StoredJSON.attributes(text(value(4))))
    }

    /// A column holding an exchange's sequence (`exchange_sequence`), read leniently.
    static func sequence(_ value: DatabaseValue) -> Int64? {
        int64(value)
    }

    /// As ``body(_:prefix:)``: a body exists when its size is set; SQLite may store an empty blob as NULL.
    private static func body(_ data: DatabaseValue, size: DatabaseValue, truncated: DatabaseValue) -> TraceBody? {
        guard let size = int(size) else { return nil }
        let bytes: Data?
        switch data.storage {
        case .blob(let blob): bytes = blob
        case .string(let string): bytes = Data(string.utf8)
        default: bytes = nil
        }
        return TraceBody(data: bytes ?? Data(), size: size, isTruncated: int(truncated).map { $0 != 0 } ?? false)
    }
}
