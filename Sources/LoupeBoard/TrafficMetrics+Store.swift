import Foundation
import LoupeQuery
import LoupeTrace

extension TraceStats {
    /// The figures of a metrics row in the shape `loupe stats` has always printed.
    public init(_ row: MetricsRow) {
        self.init(group: row.group, count: row.counts.requests, errorCount: row.counts.errors,
                  retriedCount: row.counts.retried, p50: row.p50, p95: row.p95, p99: row.p99,
                  requestBytes: row.counts.requestBytes, responseBytes: row.counts.responseBytes,
                  breakerTransitions: row.counts.breakerTransitions)
    }
}

extension SQLiteTraceStore {
    /// The metrics of the exchanges matching `filter` (all when `nil`), read in batches: what `loupe stats`
    /// prints, through the same aggregator the metrics screen feeds as rows arrive. `now`, when given, is the time
    /// windows will end at (see ``TrafficMetrics/add(_:now:)``).
    package func trafficMetrics(matching filter: TraceFilter?, now: Date? = nil) throws -> TrafficMetrics {
        var metrics = TrafficMetrics()
        try forEachBatch(matching: filter) { batch in
            for exchange in batch { metrics.add(exchange, now: now) }
        }
        return metrics
    }
}
