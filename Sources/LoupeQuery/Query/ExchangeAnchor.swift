import Foundation
import LoupeTrace

/// Where a page of the exchanges list starts, relative to the query's order.
///
/// Anchors are rows, not positions: a page after a row stays right however many rows arrive or go before it.
/// A row is found by its ``TraceSummary/sequence`` when it is still stored (so a row rewritten in place, say
/// redacted, is placed by its current values); a row that is gone is placed by the values the summary holds.
public enum ExchangeAnchor: Hashable, Sendable {
    /// The first `limit` rows.
    case first
    /// The last `limit` rows.
    case last
    /// The `limit` rows strictly after this one.
    case after(TraceSummary)
    /// The `limit` rows strictly before this one (still returned in display order).
    case before(TraceSummary)
    /// This row, if it still matches, and the rows after it: `limit` in all.
    case at(TraceSummary)
}

extension ExchangeAnchor {
    /// The row the anchor names, if any.
    var summary: TraceSummary? {
        switch self {
        case .first, .last: nil
        case .after(let summary), .before(let summary), .at(let summary): summary
        }
    }

    /// The same anchor on the row `transform` gives (the row as currently stored).
    func replacingSummary(_ transform: (TraceSummary) throws -> TraceSummary) rethrows -> ExchangeAnchor {
        switch self {
        case .first, .last: self
        case .after(let summary): .after(try transform(summary))
        case .before(let summary): .before(try transform(summary))
        case .at(let summary): .at(try transform(summary))
        }
    }
}
