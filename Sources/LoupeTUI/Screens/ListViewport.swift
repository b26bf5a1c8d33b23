/// Which rows of a list are on screen and which one is selected: the one scrolling, selection and search model of
/// the detail, the help, the diff, the rules screen and a stream's Messages tab (as ratatui's `ListState` and
/// lazygit's list cursor). A pure value: a screen tells it how many rows there are and how many fit, and draws
/// ``visible``.
///
/// It comes in two kinds. A pager (the detail, the help, the diff) has no selection: moving scrolls the page. A
/// list (``selects``) moves its selection and scrolls only as far as keeps the selection on screen. Either way the
/// page stops at the last full page, so the end of the list sits at the bottom of the screen, not higher; only
/// ``showAtTop(_:)`` (the diff's next difference) goes further, as `less` shows a match on its first line.
package struct ListViewport: Hashable, Sendable {
    /// Whether the list has a selection (else it is a pager).
    package let selects: Bool
    /// How many rows the list has.
    package private(set) var count: Int
    /// How many rows fit on a page; a page of 0 is taken as 1, so paging still moves.
    package private(set) var height: Int
    /// The first row shown.
    package private(set) var offset = 0
    /// The selected row of a list: within the list, 0 when it is empty; always 0 for a pager.
    package private(set) var selected = 0
    /// The row a pager's last search landed on: `n` goes on from it while it is on screen, even where the page
    /// could not scroll it to the top (a hit on the last page).
    private var searchAnchor: Int?

    /// A viewport over `count` rows, `height` to a page, at the top (the selection on the first row).
    package init(count: Int = 0, height: Int = 1, selects: Bool) {
        self.selects = selects
        self.count = max(0, count)
        self.height = max(1, height)
    }

    /// The rows on screen.
    package var visible: Range<Int> { min(offset, count)..<min(count, offset + height) }

    /// `lines 21–40 of 120`: where a pager is, for the status line.
    package var linesPosition: String {
        "lines \(offset + 1)–\(min(count, offset + height)) of \(count)"
    }

    // MARK: Moving

    /// Takes a new row count and page height (the list grew or shrank, the screen was resized): a selection past
    /// the end moves to the last row, and the page stays where it was as far as it still can. With `selecting`, a
    /// list selects that row instead (the row the selection was on, found again in new rows), in the same step.
    package mutating func update(count: Int, height: Int? = nil, selecting index: Int? = nil) {
        self.count = max(0, count)
        if let height { self.height = max(1, height) }
        if selects {
            select(index ?? selected)
        } else {
            scroll(to: offset)
        }
    }

    /// Moves the selection (a list) or the page (a pager) by `delta` rows, stopping at the ends.
    package mutating func move(by delta: Int) {
        if selects { select(selected + delta) } else { scroll(to: offset + delta) }
    }

    /// Moves by `pages` pages: a page is the rows that fit, so a page down shows the rows just below.
    package mutating func page(by pages: Int) {
        move(by: pages * height)
    }

    /// The first row.
    package mutating func moveToStart() {
        if selects { select(0) } else { scroll(to: 0) }
    }

    /// The last row (a pager: the last full page).
    package mutating func moveToEnd() {
        if selects { select(count - 1) } else { scroll(to: count) }
    }

    /// Selects row `index` (kept within the list) and scrolls as little as keeps it on screen.
    package mutating func select(_ index: Int) {
        selected = max(0, min(index, count - 1))
        if selected < offset { offset = selected }
        if selected >= offset + height { offset = selected - height + 1 }
        offset = max(0, min(offset, count - height))
    }

    /// Puts row `line` first on screen, no further than the last full page.
    package mutating func scroll(to line: Int) {
        offset = max(0, min(line, count - height))
    }

    /// Puts row `line` first on screen even past the last full page (any row but past the end): a jump to a
    /// place reads best from the top of the screen.
    package mutating func showAtTop(_ line: Int) {
        offset = max(0, min(line, count - 1))
    }

    // MARK: Searching

    /// Finds `text` in `rows` (what each row shows, as many as ``count``) with ``RowSearch``, and goes to it: a
    /// list selects the hit, a pager scrolls it to the top as far as it can and remembers it. The search starts at
    /// the selection, or at a pager's previous hit while that is on screen, else at the first row shown.
    package mutating func search(_ text: String, in rows: [String], forward: Bool, fromCurrent: Bool) -> RowSearch.Hit? {
        guard let hit = RowSearch.find(text, in: rows, from: searchStart, forward: forward, fromCurrent: fromCurrent) else {
            return nil
        }
        land(on: hit.index)
        return hit
    }

    /// Where a search starts: the selection, or a pager's previous hit while that is on screen, else the first row
    /// shown.
    package var searchStart: Int {
        selects ? selected : searchAnchor.flatMap { (offset..<(offset + height)).contains($0) ? $0 : nil } ?? offset
    }

    /// Goes to a hit found elsewhere (the detail's search across its tabs) as ``search(_:in:forward:fromCurrent:)``
    /// goes to its own: a list selects it, a pager scrolls it to the top and remembers it.
    package mutating func land(on index: Int) {
        if selects {
            select(index)
        } else {
            scroll(to: index)
            searchAnchor = index
        }
    }
}
