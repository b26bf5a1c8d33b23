import ArgumentParser
import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeBoard
import LoupeFormats

/// `loupe stats [STORE] [--filter EXPR] [--json]`: counts, error and retry rates, latency percentiles, bytes and
/// breaker transitions, per operation and per host.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Summarise recorded exchanges per operation and per host.",
        discussion: """
            Percentiles are over finished exchanges: p95 is the duration that 95 % of them do not exceed.
            Retried means more than one attempt; errors are every outcome but success (as ~e).
            Percentiles come from an HdrHistogram (within 1 %), the same figures as the TUI's metrics
            screen (4) for the same window: --window 1m, 5m, 15m, 1h or all (the default).

            \(FilterOption.help)
            """)

    @Argument(help: "The trace store (default: $LOUPE_STORE or the XDG state store).")
    var store: String?

    @Option(help: "Only exchanges matching EXPR, e.g. '~d example.com & ~m POST'.")
    var filter: String?

    // The parser adds the default ("(default: all)") itself.
    @Option(help: "Only exchanges started in the last 1m, 5m, 15m or 1h, or all.")
    var window: String = "all"

    @Flag(help: "Print JSON ({all, operations, hosts}).")
    var json = false

    func run() async throws {
        let filter = try FilterOption.parse(self.filter)
        guard let window = MetricsWindow(rawValue: window) else {
            throw CommandFailure.badInput("--window: expected 1m, 5m, 15m, 1h or all, got \(TerminalText.line(window))")
        }
        let (store, _) = try StoreAccess.openForReading(store)
        let report: Report
        do {
            report = try Report(store: store, filter: filter, window: window, now: Date())
        } catch {
            throw StoreAccess.readFailure(error)
        }
        let (all, operations, hosts) = (report.all, report.operations, report.hosts)
        if json {
            print(try Formatting.json(report.json))
            return
        }
        guard let all else {
            print(filter == nil ? "No exchanges recorded yet." : "No exchanges match.")
            return
        }
        print("\(Quantity.count(all.count, "exchange")), \(Self.percent(all.errorRate)) errors, \(Self.percent(all.retryRate)) retried, "
              + "p50 \(Quantity.duration(all.p50)), p95 \(Quantity.duration(all.p95)), p99 \(Quantity.duration(all.p99))")
        for (title, rows) in [("OPERATION", operations), ("HOST", hosts)] {
            print("")
            Self.table(title, rows).forEach { print($0) }
        }
    }

    private static func table(_ title: String, _ rows: [(String, TraceStats)]) -> [String] {
        let header = [title, "COUNT", "ERRORS", "RETRIED", "P50", "P95", "P99", "SENT", "RECEIVED", "BREAKER"]
        // Operation names and hosts are recorded data: shown with control characters made visible.
        let cells = rows.map { name, row in
            [TerminalText.line(name), Quantity.count(row.count), percent(row.errorRate), percent(row.retryRate), Quantity.duration(row.p50),
             Quantity.duration(row.p95), Quantity.duration(row.p99), Quantity.bytes(row.requestBytes),
             Quantity.bytes(row.responseBytes), Quantity.count(row.breakerTransitions)]
        }
        let all = [header] + cells
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.indices.map { column in
                // Names read left-aligned, figures right-aligned.
                let pad = String(repeating: " ", count: widths[column] - row[column].count)
                return column == 0 ? row[column] + pad : pad + row[column]
            }.joined(separator: "  ")
        }
    }

    /// The figures of one `stats` run, for the text table, `--json` and `loupe mcp`'s `stats` tool alike.
    struct Report {
        var window: MetricsWindow
        var all: TraceStats?
        var operations: [(String, TraceStats)]
        var hosts: [(String, TraceStats)]
        private var extras: [TraceStats.Group: MetricsRow]

        init(store: SQLiteTraceStore, filter: TraceFilter?, window: MetricsWindow, now: Date) throws {
            let metrics = try store.trafficMetrics(matching: filter, now: now).rows(window: window, now: now)
            self.window = window
            extras = Dictionary(metrics.map { ($0.group, $0) }, uniquingKeysWith: { first, _ in first })
            let stats = metrics.filter { $0.counts.requests > 0 }.map(TraceStats.init)
            all = stats.first { $0.group == .all }
            operations = stats.compactMap { row -> (String, TraceStats)? in
                if case .operation(let name) = row.group { return (name, row) }
                return nil
            }
            hosts = stats.compactMap { row -> (String, TraceStats)? in
                if case .host(let name) = row.group { return (name, row) }
                return nil
            }
        }

        /// The `--json` shape.
        var json: StatsJSON {
            func row(_ name: String?, _ stats: TraceStats) -> StatsJSON.Row {
                var row = StatsJSON.Row(name: name, stats)
                row.add(extras[stats.group])
                return row
            }
            return StatsJSON(window: window.rawValue, all: all.map { row(nil, $0) },
                             operations: operations.map { row($0.0, $0.1) }, hosts: hosts.map { row($0.0, $0.1) })
        }
    }

    static func percent(_ rate: Double) -> String { rate.isFinite ? String(format: "%.1f%%", rate * 100) : "—" }
}

/// The JSON shape of `loupe stats --json` (stable names; durations in ms, rates 0…1).
struct StatsJSON: Encodable {
    struct Row: Encodable {
        var name: String?
        var count, errors, retried: Int
        var errorRate, retryRate: Double
        var p50Ms, p95Ms, p99Ms: Double?
        var requestBytes, responseBytes, breakerTransitions: Int

        init(name: String?, _ stats: TraceStats) {
            func ms(_ seconds: Double?) -> Double? { Formatting.jsonMilliseconds(seconds) }
            self.name = name
            count = stats.count
            errors = stats.errorCount
            retried = stats.retriedCount
            // Counts over counts, finite unless a group is empty; 0 then, as JSON has no NaN.
            errorRate = stats.errorRate.isFinite ? stats.errorRate : 0
            retryRate = stats.retryRate.isFinite ? stats.retryRate : 0
            p50Ms = ms(stats.p50)
            p95Ms = ms(stats.p95)
            p99Ms = ms(stats.p99)
            requestBytes = stats.requestBytes
            responseBytes = stats.responseBytes
            breakerTransitions = stats.breakerTransitions
        }

        var maxMs: Double?
        var ratePerSecond: Double?
        var budgetDenied: Int?
        var retrySucceeded: Int?

        /// The figures only the metrics aggregator has (absent from rows made from ``TraceStats`` alone).
        mutating func add(_ row: MetricsRow?) {
            guard let row else { return }
            maxMs = Formatting.jsonMilliseconds(row.max)
            ratePerSecond = row.rate.isFinite ? row.rate : 0
            budgetDenied = row.counts.budgetDenied
            retrySucceeded = row.counts.retrySucceeded
        }
    }

    var window: String?
    var all: Row?
    var operations: [Row]
    var hosts: [Row]
}
