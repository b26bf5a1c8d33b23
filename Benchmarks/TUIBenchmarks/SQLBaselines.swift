import Benchmark
import Foundation
import GRDB

/// The raw SQL under the TUI's reads, on the same file, through GRDB with no Loupe code: what a key could
/// cost at the least. One op is one statement, its rows fetched as GRDB `Row`s.
func registerSQLBaselines() {
    let columns = """
        sequence, id, operation, method, url, host, path, started_at, duration, outcome, status, error, attempt_count, \
        replay_of, response_body_size
        """
    let middle = TUIBenchmarkStore.count / 2
    let statements: [(String, String, StatementArguments)] = [
        ("first page: 40 rows ORDER BY started_at",
         "SELECT \(columns) FROM exchange ORDER BY started_at, sequence LIMIT 40", []),
        ("keyset page mid-store: 40 rows from the middle row's started_at",
         """
         SELECT \(columns) FROM exchange
         WHERE started_at >= (SELECT started_at FROM exchange WHERE sequence = ?)
         ORDER BY started_at, sequence LIMIT 40
         """, [middle]),
        ("COUNT(*) of the whole store", "SELECT COUNT(*) FROM exchange", []),
        ("COUNT(*) before the middle row by duration (a rank)",
         "SELECT COUNT(*) FROM exchange WHERE duration < (SELECT duration FROM exchange WHERE sequence = ?)", [middle]),
        ("COUNT(*) WHERE status = 503", "SELECT COUNT(*) FROM exchange WHERE status = 503", []),
        ("first page WHERE status = 503: 40 rows ORDER BY started_at",
         "SELECT \(columns) FROM exchange WHERE status = 503 ORDER BY started_at, sequence LIMIT 40", []),
    ]
    for (name, sql, arguments) in statements {
        let queue = Lazy { () throws -> DatabaseQueue in
            var configuration = Configuration()
            configuration.readonly = true
            return try DatabaseQueue(path: try TUIBenchmarkStore.path(), configuration: configuration)
        }
        Benchmark("SQL baseline \(TUIBenchmarkStore.label): \(name)", configuration: keyConfiguration) { benchmark in
            measure(benchmark, queue) { queue in
                benchmark.startMeasurement()
                let rows = try queue.read { try Row.fetchAll($0, sql: sql, arguments: arguments) }
                benchmark.stopMeasurement()
                blackHole(rows)
            }
        }
    }
}
