import Foundation
import LoupeTrace

/// What the exchanges list is sorted by. Every key is served by an index of the SQLite store (schema v5), so a page
/// is read from the index in order whatever the key.
///
/// Ties are broken by ``TraceSummary/sequence``; absent values (an unfinished duration, no status, no body) sort
/// below every present value, as SQLite sorts `NULL` (see ``ExchangeOrder``).
public enum ExchangeSortKey: String, CaseIterable, Sendable, Codable {
    /// When the exchange started (`started_at`).
    case time
    /// How long it took (`duration`); absent while in flight.
    case duration
    /// The final HTTP status (`status`); absent when no response came.
    case status
    /// The response body's true size (`response_body_size`), not what was kept of it; absent without a body.
    case size
    /// The URL's host (`host`), compared as SQLite's `BINARY` collation does: by UTF-8 bytes.
    case host
    /// The operation's name (`operation`), compared by UTF-8 bytes.
    case operation

    /// The `exchange` column holding the key.
    var column: String {
        switch self {
        case .time: "started_at"
        case .duration: "duration"
        case .status: "status"
        case .size: "response_body_size"
        case .host: "host"
        case .operation: "operation"
        }
    }

    /// The index on ``column`` (every SQLite index ends with the rowid, so it is ordered by key, then sequence).
    var indexName: String { "exchange_" + column }

    /// Whether the column may hold `NULL`.
    var isNullable: Bool {
        switch self {
        case .duration, .status, .size: true
        case .time, .host, .operation: false
        }
    }
}
