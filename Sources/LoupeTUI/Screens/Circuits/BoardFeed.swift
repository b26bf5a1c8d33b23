import Foundation
import LoupeTrace

/// Reads what a store gained since the last read, in batches, for the aggregating screens: never the rows
/// already read, so a poll costs what arrived, not what the store holds.
enum BoardFeed {
    /// Exchanges read per query.
    static let batch = 2_000

    /// Calls `add` with every exchange stored after `sequence`, oldest first.
    static func catchUp(after sequence: Int64, context: inout ScreenContext, _ add: (TraceExchange) -> Void) {
        var last = sequence
        while true {
            guard let rows = context.read("new exchanges", { try $0.activity(after: last, limit: batch) }),
                  let newest = rows.last?.sequence else { return }
            rows.forEach(add)
            last = newest
            if rows.count < batch { return }
        }
    }
}
