import Foundation
import LoupeTrace

/// Feeds the aggregating screens (circuits, metrics) the exchanges stored since they last looked, a bounded
/// number per refresh: catching up with a large store is spread over many frames, so keys keep being answered
/// while it happens (the screens report it as ``InspectorScreen/hasDeferredWork`` and finish on later turns).
enum BoardFeed {
    /// Exchanges read per refresh, at most: a key pressed while a chunk is read waits for it, so a chunk is kept
    /// to a small part of a frame (DECISIONS 122); a poll's arrivals beyond it are read on the next turns.
    static let perRefresh = 250

    /// Calls `add` with up to `limit` exchanges stored after `sequence`, oldest first.
    /// - Returns: Whether it reached the newest (nothing more to read for now).
    static func catchUp(after sequence: Int64, limit: Int = perRefresh, context: inout ScreenContext,
                        _ add: (TraceExchange) -> Void) -> Bool {
        guard let rows = context.read("new exchanges", { try $0.activity(after: sequence, limit: limit) }) else {
            return true
        }
        rows.forEach(add)
        return rows.count < limit
    }
}
