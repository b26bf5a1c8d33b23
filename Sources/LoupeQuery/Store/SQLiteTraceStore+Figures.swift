import Foundation
import GRDB
import Loupe
import LoupeTrace

/// The few columns a comparison needs, read for every exchange matching a filter: one query per batch over the
/// exchange table alone (attempts are counted by the row's `attempt_count`), so memory holds one batch.
extension SQLiteTraceStore {
    /// Calls `body` with the figures of the exchanges matching `filter` (all when `nil`), oldest first. Only the
    /// exchanges stored when the call begins are read; each batch is its own read, so a long comparison never holds
    /// one snapshot open against the store's writers.
    package func forEachFigures(matching filter: TraceFilter?, batchSize: Int = 4_096,
                                _ body: (ExchangeFigures) throws -> Void) throws {
        let limit = max(1, batchSize)
        let condition = SQLFilter(filter)
        let (newest, listed): (Int64?, [Int64]?) = try guarded {
            try pool.read { db in
                guard let newest = try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM exchange") else { return (nil, nil) }
                guard filter != nil else { return (newest, nil) }
                return try condition.withFunction(in: db) {
                    let sql = "SELECT sequence FROM exchange WHERE (\(condition.sql)) AND sequence <= ? ORDER BY sequence"
                    return (newest, try Int64.fetchAll(db, sql: sql, arguments: condition.arguments + [newest]))
                }
            }
        }
        guard let newest else { return }
        if let listed {
            var start = 0
            while start < listed.count {
                let slice = listed[start..<min(listed.count, start + limit)]
                start += slice.count
                let json = "[" + slice.map(String.init).joined(separator: ",") + "]"
                let rows = try guarded {
                    try pool.read { db in try Self.readFigures("sequence IN (SELECT value FROM json_each(?))", [json], in: db) }
                }
                try rows.forEach(body)
            }
            return
        }
        var after = Int64.min
        while true {
            let rows = try guarded {
                try pool.read { db in
                    try Self.readFigures("sequence > ? AND sequence <= ? ORDER BY sequence LIMIT ?", [after, newest, limit], in: db)
                }
            }
            guard let last = rows.last?.sequence else { return }
            try rows.forEach(body)
            after = last
        }
    }

    /// The body is selected only when stored whole (a truncated body is not a document).
    private static func readFigures(_ condition: String, _ arguments: StatementArguments, in db: Database) throws
        -> [ExchangeFigures] {
        let statement = try db.cachedStatement(sql: """
            SELECT sequence, id, operation, host, status, outcome, duration, attempt_count, response_body_size,
                CASE WHEN IFNULL(response_body_truncated, 0) = 0 THEN response_body END
            FROM exchange WHERE \(condition)
            """)
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        var figures: [ExchangeFigures] = []
        while try rows.next() != nil {
            func value(_ index: Int) -> DatabaseValue { RowReader.column(index, of: statement) }
            func int(_ index: Int) -> Int64? {
                switch value(index).storage {
                case .int64(let number): number
                case .double(let number) where number.isFinite && abs(number) < 9e18: Int64(number)
                default: nil
                }
            }
            func text(_ index: Int) -> String? {
                if case .string(let string) = value(index).storage { return string }
                return nil
            }
            let duration: Double? = switch value(6).storage {
            case .double(let seconds): seconds
            case .int64(let seconds): Double(seconds)
            default: nil
            }
            let body: Data? = switch value(9).storage {
            case .blob(let data): data
            case .string(let string): Data(string.utf8)
            default: nil
            }
            figures.append(ExchangeFigures(
                sequence: int(0), id: text(1).flatMap(StoredUUID.parse), operation: text(2) ?? "", host: text(3) ?? "",
                status: int(4).flatMap { Int(exactly: $0) }, outcome: text(5).flatMap(ExchangeOutcome.init(rawValue:)),
                duration: duration.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil },
                attempts: Int(clamping: max(1, int(7) ?? 1)), responseSize: int(8).flatMap { Int(exactly: $0) },
                jsonBody: body))
        }
        return figures
    }
}
