import Foundation
import LoupeTrace

/// What a live list needs to know of the rows stored since it last looked, without reading them all: how many
/// match, how many of those sort before its top row (so its rank moves by that much), and the newest of them
/// (for following the newest row under an order other than time).
public struct ExchangeArrivals: Hashable, Sendable {
    /// Matching rows stored after the sequence asked about.
    public var count: Int
    /// How many of them come before the anchor in the query's order (none without an anchor).
    public var preceding: Int
    /// The matching row stored last, when there is one.
    public var newest: TraceSummary?

    public init(count: Int, preceding: Int, newest: TraceSummary?) {
        self.count = count
        self.preceding = preceding
        self.newest = newest
    }

    /// Tallies `rows` (the matching arrivals, in any order) against `anchor` as `order` places them.
    package init(_ rows: some Sequence<TraceSummary>, order: ExchangeOrder, anchor: TraceSummary?) {
        var count = 0, preceding = 0
        var newest: TraceSummary?
        for row in rows {
            count += 1
            if let anchor, order.precedes(row, anchor) { preceding += 1 }
            if row.sequence > newest?.sequence ?? .min { newest = row }
        }
        self.init(count: count, preceding: preceding, newest: newest)
    }
}
