import Foundation
import LoupeQuery
import LoupeTrace

/// Feeds an aggregating screen (circuits, metrics) the exchanges stored since it last looked, a bounded number per
/// refresh: catching up with a large store is spread over many frames, so keys keep being answered while it
/// happens (the screens report it as ``Screen/hasDeferredWork`` and finish on later turns).
///
/// One feed per board holds where its board has read to and which exchanges it counts (the exchanges list's: "metrics
/// of what I filtered"), so the two boards poll and fold the store the same way.
struct BoardFeed {
    /// Exchanges read per refresh, at most: a key pressed while a chunk is read waits for it, so a chunk is kept
    /// to a small part of a frame; a poll's arrivals beyond it are read on the next turns.
    static let perRefresh = 250

    /// The store holds exchanges the board has not read yet.
    private(set) var isCatchingUp = false
    /// The exchanges counted: the session's filter and marks-only set when they were last read.
    private var counted = ExchangeQuery()
    /// The last exchange read, whether or not the session's filter let it onto the board.
    private var readThrough: Int64 = .min

    /// Whether the board must start again from empty: the session's list is another than the one counted (its
    /// order aside), so the feed reads again from the first exchange. A board parked while the filter changed
    /// sees the new one when it is shown again.
    mutating func restarts(for context: ScreenContext) -> Bool {
        let counted = ExchangeQuery(filter: context.session.query.filter, ids: context.session.query.ids)
        guard counted != self.counted else { return false }
        self.counted = counted
        readThrough = .min
        return true
    }

    /// Reads up to `limit` exchanges stored after the last one read (oldest first) and calls `add` with those the
    /// session's list holds (its filter, or its marks when only those are shown); ``isCatchingUp`` says whether
    /// more wait.
    mutating func catchUp(limit: Int = perRefresh, context: inout ScreenContext, _ add: (TraceExchange) -> Void) {
        let after = readThrough
        guard let rows = context.read("new exchanges", { try $0.activity(after: after, limit: limit) }) else {
            isCatchingUp = false
            return
        }
        let query = context.session.query
        for row in rows {
            if let read = row.sequence { readThrough = max(readThrough, read) }
            if query.includes(row) { add(row) }
        }
        isCatchingUp = rows.count >= limit
    }
}
