import Foundation
import LoupeTrace

/// Feeds the aggregating screens (circuits, metrics) the exchanges stored since they last looked, a bounded
/// number per refresh: catching up with a large store is spread over many frames, so keys keep being answered
/// while it happens (the screens report it as ``InspectorScreen/hasDeferredWork`` and finish on later turns).
enum BoardFeed {
    /// Exchanges read per refresh, at most (about 15 µs each with their attempts and events, on a loaded 2-core
    /// machine: a chunk stays well inside a frame).
    static let perRefresh = 500

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
