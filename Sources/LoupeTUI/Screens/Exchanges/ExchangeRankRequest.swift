import LoupeQuery
import LoupeTrace

/// A count of where a window's rows sit in the list, asked for in the background: a new order or filter that keeps
/// the selected exchange draws the rows at once, and on a big store that count is the slow part.
package struct ExchangeRankRequest: Hashable, Sendable {
    /// The list as it stood when asked: the query with ``ExchangeQuery/throughSequence`` at the newest row read then, so
    /// arrivals after it are the window's to add (as it does for every arrival), not the count's.
    package var query: ExchangeQuery
    /// The window's first row when asked.
    package var anchor: TraceSummary
    /// The window's provisional first rank when asked. Moves and arrivals since shift the rank from there; the
    /// count replaces this base and keeps the shift. (Two requests equal in all three are answered alike.)
    package var provisional: Int
}

/// An ``ExchangeRankRequest`` answered: how many rows of the list come before its anchor.
package struct ExchangeRankCount: Hashable, Sendable {
    package var request: ExchangeRankRequest
    package var rank: Int

    package init(request: ExchangeRankRequest, rank: Int) {
        self.request = request
        self.rank = rank
    }
}
