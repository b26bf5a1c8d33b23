import Foundation
import LoupeTrace

/// The exchanges operations over rows held in memory: what ``InMemoryTraceStore`` and the default implementations of
/// ``TraceStore`` answer with, and what the SQLite store's answers are tested against.
///
/// Pages are chosen without sorting every row: one pass keeps the `limit` rows nearest the anchor, so a page of
/// a large in-memory store costs one comparison per row, not a sort.
enum ExchangePaging {
    /// The page of `rows` (the query's rows, in any order) that `anchor` names, in display order. The anchor
    /// must already be the row as stored (see ``ExchangeAnchor``).
    static func page(_ rows: [TraceSummary], order: ExchangeOrder, from anchor: ExchangeAnchor, limit: Int) -> [TraceSummary] {
        guard limit > 0 else { return [] }
        let forward = order.precedes
        let backward = { (a: TraceSummary, b: TraceSummary) in order.precedes(b, a) }
        switch anchor {
        case .first:
            return first(limit, of: rows, by: forward)
        case .last:
            return first(limit, of: rows, by: backward).reversed()
        case .after(let anchor):
            return first(limit, of: rows.filter { order.precedes(anchor, $0) }, by: forward)
        case .at(let anchor):
            return first(limit, of: rows.filter { !order.precedes($0, anchor) }, by: forward)
        case .before(let anchor):
            return first(limit, of: rows.filter { order.precedes($0, anchor) }, by: backward).reversed()
        }
    }

    /// How many of `rows` come strictly before `summary`.
    static func rank(_ rows: [TraceSummary], order: ExchangeOrder, of summary: TraceSummary) -> Int {
        rows.reduce(0) { $0 + (order.precedes($1, summary) ? 1 : 0) }
    }

    /// The `count` first of `rows` under `precedes`, in that order: one pass, keeping a sorted buffer of indexes
    /// (rows already nearly in order, as arrivals are by time, rarely enter it).
    static func first(_ count: Int, of rows: [TraceSummary], by precedes: (TraceSummary, TraceSummary) -> Bool)
        -> [TraceSummary]
    {
        guard count > 0 else { return [] }
        var kept: [Int] = []
        kept.reserveCapacity(min(count, rows.count))
        for index in rows.indices {
            if kept.count == count {
                guard precedes(rows[index], rows[kept[kept.count - 1]]) else { continue }
                kept.removeLast()
            }
            // The first kept row that `rows[index]` precedes: it goes just before it.
            var (low, high) = (0, kept.count)
            while low < high {
                let middle = (low + high) / 2
                if precedes(rows[index], rows[kept[middle]]) { high = middle } else { low = middle + 1 }
            }
            kept.insert(index, at: low)
        }
        return kept.map { rows[$0] }
    }
}
