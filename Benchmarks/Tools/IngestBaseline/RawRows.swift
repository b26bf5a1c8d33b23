import Foundation
import GRDB
import LoupeTrace

/// The baseline's rows: the values Loupe's `RowWriter` binds for `IngestSample.exchange`, computed once (JSON
/// header lists, host, path, sizes) instead of per row, and matched by name against the columns the store's schema
/// has today. A new column with a default is left to its default; one the baseline cannot fill stops the run.
package struct RawRows: Sendable {
    package let exchange: RawInsert
    package let attempt: RawInsert

    package init(_ db: Database) throws {
        let sample = IngestSample.exchange()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let requestHeaders = String(decoding: try encoder.encode(sample.requestHeaders), as: UTF8.self)
        let responseHeaders = String(decoding: try encoder.encode(sample.responseHeaders), as: UTF8.self)
        let body = sample.responseBody?.data ?? Data()
        exchange = try RawInsert(db, table: "exchange", key: "id", values: [
            "started_at": .now(0), "ended_at": .now(0.012), "duration": .fixed(0.012),
            "operation": .fixed(sample.operation), "method": .fixed(sample.method), "url": .fixed(sample.url),
            "host": .fixed("api.example.com"), "path": .fixed("/v1/ping"), "status": .fixed(200),
            "outcome": .fixed("success"), "error": .fixed(nil), "attempt_count": .fixed(1), "replay_of": .fixed(nil),
            "request_headers": .fixed(requestHeaders), "request_body": .fixed(nil), "request_body_size": .fixed(nil),
            "request_body_truncated": .fixed(nil), "response_headers": .fixed(responseHeaders),
            "response_body": .fixed(body), "response_body_size": .fixed(body.count),
            "response_body_truncated": .fixed(false), "stored_at": .now(0),
            "stored_bytes": .fixed(sample.storedByteCount),
        ])
        attempt = try RawInsert(db, table: "attempt", key: "exchange_sequence", values: [
            "number": .fixed(1), "started_at": .now(0), "request_sent_at": .now(0.001), "first_byte_at": .now(0.010),
            "ended_at": .now(0.012), "status": .fixed(200), "error": .fixed(nil), "circuit_state": .fixed(nil),
            "retry_reason": .fixed(nil), "retry_delay": .fixed(nil),
        ])
    }
}

/// One prepared INSERT: its SQL, and the values in column order with a slot for the per-row key.
package struct RawInsert: Sendable {
    package enum Value: Sendable {
        case fixed((any DatabaseValueConvertible & Sendable)?)
        /// Seconds since 1970, `offset` after the batch's start.
        case now(Double)
    }

    /// One batch's values: everything but the key is fixed for the batch.
    package struct Batch {
        var values: [(any DatabaseValueConvertible)?]
        let keySlot: Int

        package func arguments(key: some DatabaseValueConvertible) -> StatementArguments {
            var values = values
            values[keySlot] = key
            return StatementArguments(values)
        }
    }

    package let sql: String
    private let columns: [(name: String, value: Value?)]

    init(_ db: Database, table: String, key: String, values: [String: Value]) throws {
        var columns: [(name: String, value: Value?)] = [(key, nil)]
        for column in try db.columns(in: table) where column.name != key && column.primaryKeyIndex == 0 {
            if let value = values[column.name] {
                columns.append((column.name, value))
            } else if column.isNotNull && column.defaultValueSQL == nil {
                throw RawRowsError("the store's \(table).\(column.name) is new to the raw baseline: add it to RawRows")
            }
        }
        self.columns = columns
        sql = "INSERT INTO \(table) (\(columns.map(\.name).joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
    }

    package func values(now: Date) -> Batch {
        let seconds = now.timeIntervalSince1970
        return Batch(values: columns.map { column -> (any DatabaseValueConvertible)? in
            switch column.value {
            case .fixed(let value)?: return value
            case .now(let offset)?: return seconds + offset
            case nil: return nil
            }
        }, keySlot: 0)
    }
}

/// The store's schema has a column the baseline does not know how to fill.
package struct RawRowsError: Error, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}
