import Foundation
import LoupeQuery
import LoupeTrace

/// Feeds the aggregating screens (circuits, metrics) the exchanges stored since they last looked, a bounded
/// number per refresh: catching up with a large store is spread over many frames, so keys keep being answered
/// while it happens (the screens report it as ``InspectorScreen/hasDeferredWork`` and finish on later turns).
enum BoardFeed {
    /// Exchanges read per refresh, at most: a key pressed while a chunk is read waits for it, so a chunk is kept
    /// to a small part of a frame (DECISIONS 122); a poll's arrivals beyond it are read on the next turns.
    static let perRefresh = 250

    /// Reads up to `limit` exchanges stored after `sequence` (oldest first), moves `sequence` past them, and
    /// calls `add` with those the session's list holds (its filter, or its marks when only those are shown):
    /// the boards count what the flows list shows ("metrics of what I filtered").
    /// - Returns: Whether it reached the newest (nothing more to read for now).
    static func catchUp(after sequence: inout Int64, limit: Int = perRefresh, context: inout ScreenContext,
                        _ add: (TraceExchange) -> Void) -> Bool {
        let after = sequence
        guard let rows = context.read("new exchanges", { try $0.activity(after: after, limit: limit) }) else {
            return true
        }
        let query = context.session.query
        for row in rows {
            if let read = row.sequence { sequence = max(sequence, read) }
            if query.includes(row) { add(row) }
        }
        return rows.count < limit
    }
}
