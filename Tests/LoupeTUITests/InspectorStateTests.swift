import Foundation
import LoupeTrace
import LoupeTUI
import Testing

@Suite struct InspectorStateTests {
    private func loaded(_ count: Int, follow: Bool = true) -> InspectorState {
        var state = InspectorState(storeName: "s", size: Size(width: 80, height: 24), canReplay: false, timeZone: .gmt)
        let rows = (1...count).map { Fixture.exchange($0).summary }
        _ = state.update(.summariesLoaded(rows, through: Int64(count), total: count))
        if !follow { _ = state.update(.command(.toggleFollow)) }
        return state
    }

    private func summary(_ number: Int, sequence: Int64) -> TraceSummary {
        var summary = Fixture.exchange(number).summary
        summary.sequence = sequence
        return summary
    }

    @Test func followSelectsTheNewestRow() {
        var state = loaded(5)
        #expect(state.selectedSummary?.id == Fixture.id(5))
        _ = state.update(.summariesLoaded([summary(6, sequence: 6)], through: 6, total: 6))
        #expect(state.selectedSummary?.id == Fixture.id(6))
    }

    @Test func withoutFollowTheSelectionStaysOnTheSameExchange() {
        var state = loaded(5, follow: false)
        _ = state.update(.key("k"))
        _ = state.update(.key("k"))
        #expect(state.selectedSummary?.id == Fixture.id(3))
        _ = state.update(.summariesLoaded([summary(6, sequence: 6), summary(7, sequence: 7)], through: 7, total: 7))
        #expect(state.selectedSummary?.id == Fixture.id(3))
        #expect(state.rows.count == 7)
    }

    @Test func movingAwayFromTheNewestRowTurnsFollowOff() {
        var state = loaded(5)
        #expect(state.follow)
        _ = state.update(.key(.up))
        #expect(!state.follow)
        _ = state.update(.key("F"))
        #expect(state.follow)
        #expect(state.selectedIndex == 4)
    }

    @Test func anUpdatedExchangeReplacesItsRow() {
        var state = loaded(3, follow: false)
        var changed = summary(2, sequence: 4)
        changed.status = 500
        _ = state.update(.summariesLoaded([changed], through: 4, total: 3))
        #expect(state.rows.count == 3)
        #expect(state.rows[1].status == 500)
        #expect(state.lastSequence == 4)
    }

    @Test func pagingAndJumpsStayInRange() {
        var state = loaded(100, follow: false)
        _ = state.update(.key("g"))
        #expect(state.selectedIndex == 0)
        #expect(state.listTop == 0)
        _ = state.update(.key(.pageDown))
        #expect(state.selectedIndex == state.layout.listPage)
        _ = state.update(.key("G"))
        #expect(state.selectedIndex == 99)
        #expect(state.listTop == 100 - state.layout.listPage)
        _ = state.update(.key(.down))
        #expect(state.selectedIndex == 99)
        for _ in 0..<10 { _ = state.update(.key(.pageUp)) }
        #expect(state.selectedIndex == 0)
    }

    @Test func theRowLimitDropsTheOldestRows() {
        var state = InspectorState(storeName: "s", size: Size(width: 80, height: 24), canReplay: false, rowLimit: 10)
        let rows = (1...25).map { summary($0, sequence: Int64($0)) }
        _ = state.update(.summariesLoaded(rows, through: 25, total: 25))
        #expect(state.rows.count == 10)
        #expect(state.rows.first?.id == Fixture.id(16))
        #expect(state.selectedIndex == 9)
    }

    @Test func openingAsksForTheDetailAndUpdatesReloadIt() {
        var state = loaded(3)
        #expect(state.update(.key(.enter)) == [.loadDetail(Fixture.id(3))])
        #expect(state.detail?.id == Fixture.id(3))
        #expect(state.update(.summariesLoaded([summary(3, sequence: 9)], through: 9, total: 3)) == [.loadDetail(Fixture.id(3))])
        _ = state.update(.key(.escape))
        #expect(state.detail == nil)
    }

    @Test func replayWithoutAReplayerExplainsWhy() {
        var state = loaded(2)
        #expect(state.update(.key("r")).isEmpty)
        #expect(state.status?.isError == true)
        #expect(state.status?.text.contains("not available") == true)
    }

    @Test func storeFailuresAreKeptUntilAReadSucceeds() {
        var state = loaded(2)
        _ = state.update(.storeFailed("disk I/O error"))
        #expect(state.storeProblem == "disk I/O error")
        #expect(InspectorRenderer.render(state).lines[22].contains("store: disk I/O error"))
        _ = state.update(.summariesLoaded([], through: 2, total: nil))
        #expect(state.storeProblem == nil)
    }

    @Test func resizingKeepsTheSelectionVisible() {
        var state = loaded(100)
        _ = state.update(.resized(Size(width: 80, height: 10)))
        let selected = try! #require(state.selectedIndex)
        #expect(selected >= state.listTop && selected < state.listTop + state.layout.listPage)
    }
}
