import Foundation
import LoupeBoard
import LoupeQuery
@testable import LoupeTrace

/// What `loupe stats` prints for a store's matching exchanges, through the one aggregator, LoupeBoard's
/// `TrafficMetrics` (the metrics screen's): a SQLite store through `trafficMetrics(matching:)`, any other store
/// through its matching exchanges.
func storeStats(_ store: any TraceStore, matching filter: TraceFilter?) throws -> [TraceStats] {
    let now = Date()
    let metrics: TrafficMetrics
    if let sqlite = store as? SQLiteTraceStore {
        metrics = try sqlite.trafficMetrics(matching: filter, now: now)
    } else {
        var fed = TrafficMetrics()
        for exchange in try store.exchanges(matching: filter, limit: .max) { fed.add(exchange, now: now) }
        metrics = fed
    }
    return metrics.rows(window: .all, now: now).filter { $0.counts.requests > 0 }.map(TraceStats.init)
}
