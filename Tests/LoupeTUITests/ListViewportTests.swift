import LoupeTUI
import Testing

/// The one scroll and selection model of the detail, help, diff, rules and Messages screens, on its own: the ends,
/// tiny pages, a list that shrinks under its selection, and search wrapping around.
@Suite struct ListViewportTests {
    @Test func anEmptyListStaysAtZeroWhateverMoves() {
        for selects in [true, false] {
            var viewport = ListViewport(count: 0, height: 5, selects: selects)
            let moves: [(inout ListViewport) -> Void] = [
                { $0.move(by: 1) }, { $0.move(by: -1) }, { $0.page(by: 1) }, { $0.page(by: -1) }, { $0.moveToEnd() },
                { $0.moveToStart() }, { $0.select(3) }, { $0.scroll(to: 7) }, { $0.showAtTop(4) },
            ]
            for move in moves {
                move(&viewport)
                #expect(viewport.offset == 0 && viewport.selected == 0 && viewport.visible.isEmpty)
            }
            let hit = viewport.search("x", in: [], forward: true, fromCurrent: true)
            #expect(hit == nil)
        }
    }

    @Test func oneRowIsAlwaysTheSelectionAndTheTop() {
        var list = ListViewport(count: 1, height: 10, selects: true)
        list.move(by: 1)
        list.page(by: 1)
        list.moveToEnd()
        #expect(list.selected == 0 && list.offset == 0 && list.visible == 0..<1)
        var pager = ListViewport(count: 1, height: 10, selects: false)
        pager.move(by: 5)
        pager.moveToEnd()
        #expect(pager.offset == 0 && pager.linesPosition == "lines 1–1 of 1")
    }

    @Test func theSelectionScrollsAsLittleAsKeepsItOnScreen() {
        var list = ListViewport(count: 100, height: 10, selects: true)
        list.move(by: 9)
        #expect(list.offset == 0, "the last row of the first page needs no scrolling")
        list.move(by: 1)
        #expect(list.selected == 10 && list.offset == 1)
        list.page(by: 1)
        #expect(list.selected == 20 && list.offset == 11)
        list.move(by: -5)
        #expect(list.selected == 15 && list.offset == 11, "moving up inside the page leaves it")
        list.moveToEnd()
        #expect(list.selected == 99 && list.offset == 90 && list.visible == 90..<100)
        list.page(by: -20)
        #expect(list.selected == 0 && list.offset == 0)
    }

    @Test func aPagerStopsAtTheLastFullPageButShowAtTopGoesOn() {
        var pager = ListViewport(count: 30, height: 10, selects: false)
        pager.moveToEnd()
        #expect(pager.offset == 20 && pager.linesPosition == "lines 21–30 of 30")
        pager.page(by: 1)
        #expect(pager.offset == 20)
        pager.showAtTop(27)
        #expect(pager.offset == 27 && pager.visible == 27..<30)
        pager.showAtTop(99)
        #expect(pager.offset == 29, "never past the last row")
        pager.move(by: -1)
        #expect(pager.offset == 20, "the next move takes it back inside")
    }

    @Test func theSelectionPastTheEndComesBackWhenTheListShrinks() {
        var list = ListViewport(count: 50, height: 10, selects: true)
        list.select(45)
        #expect(list.offset == 36)
        list.update(count: 12)
        #expect(list.selected == 11 && list.offset == 2 && list.visible.contains(11))
        list.update(count: 0)
        #expect(list.selected == 0 && list.offset == 0)
        var pager = ListViewport(count: 50, height: 10, selects: false)
        pager.moveToEnd()
        pager.update(count: 15)
        #expect(pager.offset == 5)
    }

    @Test func aNewRowCountAndAMovedSelectionAreOneStep() {
        // The selected row moved from 8 to 1 while the page shrank to 3 rows: one pass from where the page was
        // leaves it at the top, as the screens always did; two (the new height, then the row) would scroll to 1.
        var list = ListViewport(count: 40, height: 10, selects: true)
        list.select(8)
        list.update(count: 40, height: 3, selecting: 1)
        #expect(list.selected == 1 && list.offset == 0)
    }

    @Test(arguments: [0, 1])
    func pagesOfNoRowOrOneRowStillMoveOneRow(_ height: Int) {
        var list = ListViewport(count: 5, height: height, selects: true)
        #expect(list.height == 1)
        list.page(by: 1)
        #expect(list.selected == 1 && list.offset == 1)
        list.update(count: 5, height: height)
        list.page(by: -1)
        #expect(list.selected == 0 && list.offset == 0)
        var pager = ListViewport(count: 5, height: height, selects: false)
        pager.page(by: 1)
        pager.page(by: 1)
        #expect(pager.offset == 2 && pager.visible == 2..<3)
        pager.moveToEnd()
        #expect(pager.offset == 4)
    }

    @Test func searchWrapsAroundBothWays() {
        let rows = ["a", "hit", "b", "hit", "c", "hit"]
        var list = ListViewport(count: rows.count, height: 2, selects: true)
        func find(_ text: String = "hit", forward: Bool = true, fromCurrent: Bool = false) -> RowSearch.Hit? {
            list.search(text, in: rows, forward: forward, fromCurrent: fromCurrent)
        }
        #expect(find(fromCurrent: true)?.index == 1)
        #expect(find(fromCurrent: true)?.index == 1, "the current row counts")
        #expect(find()?.index == 3)
        let last = find()
        #expect(last?.index == 5 && last?.ordinal == 3 && last?.count == 3 && list.offset == 4)
        #expect(find()?.index == 1, "wraps to the first")
        #expect(find(forward: false)?.index == 5, "wraps to the last")
        #expect(find("nothing", fromCurrent: true) == nil)
        #expect(list.selected == 5, "a search that finds nothing leaves the selection")
    }

    @Test func aPagerGoesOnFromAHitTheLastPageCannotScrollToTheTop() {
        let rows = (0..<10).map { $0 >= 7 ? "hit \($0)" : "line \($0)" }
        var pager = ListViewport(count: rows.count, height: 5, selects: false)
        func find(fromCurrent: Bool = false) -> Int? {
            pager.search("hit", in: rows, forward: true, fromCurrent: fromCurrent)?.index
        }
        #expect(find(fromCurrent: true) == 7)
        #expect(pager.offset == 5, "the last full page")
        #expect(find() == 8, "from the hit, not from the top of the page")
        pager.moveToStart()
        #expect(find() == 7, "the hit scrolled away: from the top of the page again")
    }

    @Test func movementCommandsAndTheWheel() {
        var list = ListViewport(count: 20, height: 4, selects: true)
        func run(_ command: Command) -> Int? { list.perform(command) ? list.selected : nil }
        #expect(run(.pageDown) == 4)
        #expect(run(.bottom) == 19)
        #expect(run(.moveUp) == 18)
        #expect(run(.open) == nil, "not a movement")
        list.wheel(.wheelUp)
        #expect(list.selected == 15)
        list.wheel(.press)
        #expect(list.selected == 15)
        #expect(run(.top) == 0)
    }
}
