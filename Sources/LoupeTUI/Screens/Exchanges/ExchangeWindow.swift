import Foundation
import Loupe
import LoupeQuery
import LoupeTrace

/// The exchanges list's view of the store: the visible rows only, where they sit in the whole ordered, filtered
/// store (``firstRank``), and how many there are (``total``). Never more than one screen of rows in memory.
///
/// Moving reads one keyset page from the store (``TraceStore/exchangePage(_:from:limit:)``); ranks are kept exact
/// without counting: a step moves the rank by the rows stepped over, and arrivals shift it by how many sort
/// before the top row. Only a jump to an arbitrary row, a new filter or order, or rows deleted under us
/// (a prune) pays for a `COUNT`. A new filter or order that keeps the selected row puts that count off
/// (``rankRequest``): the rows are drawn at once and the count runs in the background, answered through
/// ``applyRank(_:)``, since on a big store the count of rows before the middle one is the slow
/// part. Until then ranks are provisional, shifted by moves and arrivals as usual, and the position reads `… / N`.
package struct ExchangeWindow: Hashable, Sendable {
    /// The visible rows, in display order.
    package private(set) var rows: [TraceSummary] = []
    /// The selected row's index in ``rows``.
    package private(set) var selected: Int?
    /// How many rows of the whole list come before ``rows``'s first.
    package private(set) var firstRank = 0
    /// How many rows the list has in all.
    package private(set) var total = 0
    /// How many rows fit.
    package private(set) var height = 1
    /// The store as last read, to tell whether a poll has anything to do.
    package private(set) var marker: StoreChangeMarker?
    /// The newest sequence read: arrivals are rows after it.
    package private(set) var lastSequence: Int64 = 0
    /// Whether the store has been read.
    package private(set) var hasLoaded = false
    /// The count that will make ``firstRank`` exact, while it is only provisional.
    package private(set) var rankRequest: ExchangeRankRequest?
    /// Whether ``firstRank`` is only provisional (a ``rankRequest`` is out).
    package var rankIsPending: Bool { rankRequest != nil }
    /// The query the rows were read for: a new order of the same rows keeps ``total`` (and a reversal the rank).
    private var loadedQuery: ExchangeQuery?

    package init() {}

    /// A window showing `rows` as the whole list (for drawing tests).
    package init(rows: [TraceSummary], selected: Int? = nil) {
        self.rows = rows
        self.selected = selected ?? (rows.isEmpty ? nil : rows.count - 1)
        self.total = rows.count
        self.height = max(1, rows.count)
        self.hasLoaded = true
    }

    /// The selected row.
    package var selectedRow: TraceSummary? { selected.map { rows[$0] } }
    /// `12 / 1,000,000` for the status line; `… / 1,000,000` while the rank is pending.
    package var positionText: String {
        guard hasLoaded else { return "" }
        let total = Quantity.count(self.total)
        if rankIsPending, selected != nil { return "… / \(total)" }
        guard let rank = selectedRank else { return "0 / \(total)" }
        return "\(Quantity.count(rank + 1)) / \(total)"
    }

    /// The selected row's 0-based place in the whole list.
    package var selectedRank: Int? { rankIsPending ? nil : selected.map { firstRank + $0 } }

    // MARK: Loading

    /// Reads the list afresh for `query`: counts it, and shows `keeping` where it was on screen if it still
    /// matches, else the newest (following) or the first rows.
    package mutating func reload(_ query: ExchangeQuery, store: any TraceStore, height: Int, keeping: TraceSummary?,
                                 follow: Bool) throws {
        self.height = max(1, height)
        let previousMarker = marker, previousQuery = loadedQuery, previousRank = selectedRank
        marker = try store.changeMarker()
        lastSequence = marker?.maxSequence ?? 0
        // Only the order changed and nothing arrived: the same rows, so the same count (a COUNT of a million rows
        // is most of a sort change's frame otherwise).
        let sameRows = hasLoaded && marker == previousMarker
            && previousQuery.map { $0.filter == query.filter && $0.ids == query.ids } == true
        if !sameRows { try count(query, store: store) }
        hasLoaded = true
        loadedQuery = query
        // The same rows hold the kept one still (were it gone, the marker would have changed).
        if let keeping, try sameRows || matches(keeping, query, store: store) {
            let offset = selected.map { min($0, self.height - 1) } ?? 0
            // Reversed: the row that had `rank` rows before it now has the others before it.
            let reversed = sameRows && previousQuery?.order.key == query.order.key
                && previousQuery?.order.descending != query.order.descending
            let rank = reversed ? previousRank.map { total - 1 - $0 } : nil
            try show(keeping, rank: rank, screenRow: offset, query, store: store)
        } else if follow {
            try jumpToNewest(query, store: store)
        } else {
            try top(query, store: store)
        }
    }

    /// Applies what changed in the store since the last read (cheap when nothing did).
    /// - Returns: Whether anything changed.
    @discardableResult
    package mutating func poll(_ query: ExchangeQuery, store: any TraceStore, follow: Bool) throws -> Bool {
        let now = try store.changeMarker()
        guard now != marker else { return false }
        let previous = marker
        marker = now
        let arrivals = try store.exchangeArrivals(query, after: lastSequence, before: rows.first)
        // Rows committed after the marker was read are counted now, so the next poll must start after them.
        lastSequence = max(lastSequence, now.maxSequence ?? 0, arrivals.newest?.sequence ?? 0)
        let rowsWentAway = previous.map { now.minSequence != $0.minSequence || (now.maxSequence ?? 0) < ($0.maxSequence ?? 0) } ?? true
        if rowsWentAway {
            // Pruned: count again rather than adjust.
            try count(query, store: store)
            if let first = rows.first { firstRank = try store.exchangeRank(query, of: first) }
            rankRequest = nil
        } else {
            total += arrivals.count
            firstRank += arrivals.preceding
        }
        if follow {
            try jumpToNewest(query, store: store, newest: arrivals.newest)
        } else {
            try refill(query, store: store)
        }
        return true
    }

    /// Counts the list; rows committed while it counted are in the total, so the next poll goes on after them.
    private mutating func count(_ query: ExchangeQuery, store: any TraceStore) throws {
        let counted = try store.exchangeTotal(query)
        total = counted.count
        lastSequence = max(lastSequence, counted.newestSequence ?? 0)
    }

    /// Re-reads the visible rows from the same top row (after arrivals, a resize or a mark change), keeping the
    /// selected exchange selected when it is still there.
    package mutating func refill(_ query: ExchangeQuery, store: any TraceStore, height: Int? = nil) throws {
        if let height { self.height = max(1, height) }
        let selectedID = selectedRow?.id
        let selectedOffset = selected ?? 0
        guard let first = rows.first else { return try top(query, store: store) }
        var page = try store.exchangePage(query, from: .at(first), limit: self.height)
        if page.count < self.height, firstRank > 0 || rankIsPending {
            // The end came into view (or rows went away): pull earlier rows in so the screen stays full.
            let earlier = try store.exchangePage(query, from: .before(page.first ?? first), limit: self.height - page.count)
            page = earlier + page
            firstRank -= earlier.count
        }
        rows = page
        selected = rows.isEmpty ? nil
            : rows.firstIndex { $0.id == selectedID } ?? min(selectedOffset, rows.count - 1)
        clampRanks()
    }

    // MARK: Moving

    /// Moves the selection by `delta` rows, scrolling by reading the rows that come into view.
    package mutating func move(by delta: Int, _ query: ExchangeQuery, store: any TraceStore) throws {
        guard let current = selected, delta != 0 else { return }
        let target = current + delta
        if target >= 0, target < rows.count {
            selected = target
            return
        }
        if target >= rows.count {
            guard let last = rows.last else { return }
            let incoming = try store.exchangePage(query, from: .after(last), limit: min(height, target - rows.count + 1))
            let combined = rows + incoming
            let keep = min(height, combined.count)
            let dropped = combined.count - keep
            rows = Array(combined.suffix(keep))
            firstRank += dropped
            selected = min(rows.count - 1, target - dropped)
        } else {
            guard let first = rows.first else { return }
            let incoming = try store.exchangePage(query, from: .before(first), limit: min(height, -target))
            let combined = incoming + rows
            rows = Array(combined.prefix(height))
            firstRank -= incoming.count
            selected = max(0, target + incoming.count)
        }
        clampRanks()
    }

    /// The first rows (`g`).
    package mutating func top(_ query: ExchangeQuery, store: any TraceStore) throws {
        rows = try store.exchangePage(query, from: .first, limit: height)
        firstRank = 0
        rankRequest = nil
        selected = rows.isEmpty ? nil : 0
    }

    /// The last rows (`G`).
    package mutating func bottom(_ query: ExchangeQuery, store: any TraceStore) throws {
        rows = try store.exchangePage(query, from: .last, limit: height)
        firstRank = max(0, total - rows.count)
        rankRequest = nil
        selected = rows.isEmpty ? nil : rows.count - 1
    }

    /// Shows `row`, whose place in the list is `rank`, on screen row `screenRow` (or as near as the ends allow),
    /// selected. With `rank` unknown the rank is left pending, unless the rows before `row` run out on screen (then
    /// it is how many there are).
    package mutating func show(_ row: TraceSummary, rank: Int?, screenRow: Int, _ query: ExchangeQuery,
                               store: any TraceStore) throws {
        let wanted = max(0, min(screenRow, rank ?? screenRow))
        // With the rank unknown, one row more than needed tells whether the start is that near (then the rank is
        // how many came back).
        var before = try store.exchangePage(query, from: .before(row), limit: rank == nil ? wanted + 1 : wanted)
        let rank = rank ?? (before.count <= wanted ? before.count : nil)
        if before.count > wanted { before.removeFirst(before.count - wanted) }
        var page = before + (try store.exchangePage(query, from: .at(row), limit: height - before.count))
        var firstRank = (rank ?? before.count) - before.count
        if page.count < height, rank == nil || firstRank > 0, let head = page.first {
            let more = try store.exchangePage(query, from: .before(head), limit: height - page.count)
            page = more + page
            firstRank -= more.count
        }
        rows = page
        self.firstRank = firstRank
        rankRequest = nil
        if rank == nil, let first = page.first {
            var asked = query
            asked.throughSequence = lastSequence
            rankRequest = ExchangeRankRequest(query: asked, anchor: first, provisional: firstRank)
        }
        selected = page.isEmpty ? nil : min(page.count - 1, page.firstIndex { $0.id == row.id } ?? 0)
        clampRanks()
    }

    /// Takes the answer to ``rankRequest``: the provisional ranks become exact, keeping what moves and arrivals
    /// shifted them by since. An answer to an older request is ignored.
    /// - Returns: Whether it was the answer awaited.
    @discardableResult
    package mutating func applyRank(_ count: ExchangeRankCount) -> Bool {
        guard let request = rankRequest, request == count.request else { return false }
        firstRank += count.rank - request.provisional
        rankRequest = nil
        clampRanks()
        return true
    }

    /// Counts ``rankRequest`` here and now (where nothing runs in the background).
    package mutating func settleRank(store: any TraceStore) throws {
        guard let request = rankRequest else { return }
        applyRank(ExchangeRankCount(request: request, rank: try store.exchangeRank(request.query, of: request.anchor)))
    }

    /// Selects `row` (which must match the query), counting its rank.
    package mutating func select(_ row: TraceSummary, _ query: ExchangeQuery, store: any TraceStore) throws {
        if let index = rows.firstIndex(where: { $0.id == row.id }) {
            selected = index
            return
        }
        let rank = try store.exchangeRank(query, of: row)
        try show(row, rank: rank, screenRow: height / 2, query, store: store)
    }

    /// Selects the visible row at `index` (a click).
    package mutating func selectVisible(_ index: Int) {
        guard rows.indices.contains(index) else { return }
        selected = index
    }

    // MARK: Helpers

    /// Follows: the newest exchange selected (the end in time order, its place otherwise).
    private mutating func jumpToNewest(_ query: ExchangeQuery, store: any TraceStore, newest: TraceSummary? = nil) throws {
        switch query.order.key {
        case .time where !query.order.descending:
            try bottom(query, store: store)
        case .time:
            try top(query, store: store)
        default:
            guard let newest else {
                return try rows.isEmpty ? top(query, store: store) : refill(query, store: store)
            }
            try select(newest, query, store: store)
        }
    }

    private func matches(_ row: TraceSummary, _ query: ExchangeQuery, store: any TraceStore) throws -> Bool {
        try store.exchangePage(query, from: .at(row), limit: 1).first?.id == row.id
    }

    /// Keeps exact ranks inside the list. Provisional ones are left as they are: they are a base plus shifts, and
    /// the count's answer replaces only the base.
    private mutating func clampRanks() {
        guard !rankIsPending else { return }
        firstRank = max(0, firstRank)
        total = max(total, firstRank + rows.count)
    }
}
