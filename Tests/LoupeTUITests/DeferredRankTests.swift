import Foundation
import LoupeQuery
import LoupeTrace
import LoupeFilter
import Testing
@testable import LoupeTUI

/// A new order keeps the selected exchange; its exact place in the new order (a `COUNT` over the whole store) is
/// counted in the background after the frame that shows the rows, and keys are answered meanwhile.
@Suite struct DeferredRankTests {
    /// 200 exchanges whose durations run opposite to their times: sorting by duration reverses the list.
    static let exchanges = (1...200).map { Fixture.exchange($0, duration: Double(201 - $0) / 1000) }

    @Test func aNewOrderDrawsTheRowsAtOnceAndThePositionWhenCounted() async throws {
        let store = CountingStore(try Fixture.store(Self.exchanges))
        store.holdRanks()
        let (app, screen) = Fixture.app(store)
        for _ in 0..<80 { screen.press("k") }
        app.turn(on: screen)
        #expect(screen.lines[22].hasSuffix("120 / 200 "), "\(screen.lines[22])")
        screen.press("o", "v")  // by duration, shortest first
        app.turn(on: screen)
        #expect(screen.lines[22].hasSuffix("… / 200 "), "the rows first: \(screen.lines[22])")
        #expect(app.state.exchanges.window.selectedRow?.id == Fixture.id(120))
        #expect(!app.state.hasDeferredWork, "nothing left for the loop to do itself")
        store.releaseRanks()
        await app.settle()
        app.turn(on: screen)
        #expect(screen.lines[22].hasSuffix(" 81 / 200 "), "exchange 120 is the 81st shortest: \(screen.lines[22])")
    }

    @Test func keysAreAnsweredWhileTheCountIsOutAndKeepTheirSteps() async throws {
        let store = CountingStore(try Fixture.store(Self.exchanges))
        store.holdRanks()
        let (app, screen) = Fixture.app(store)
        for _ in 0..<80 { screen.press("k") }
        app.turn(on: screen)
        screen.press("o", "v")  // by duration, shortest first
        app.turn(on: screen)
        for _ in 0..<30 { screen.press("j") }
        screen.press("k")
        app.turn(on: screen)
        #expect(app.state.exchanges.window.selectedRow?.id == Fixture.id(91), "29 rows on, each shorter")
        #expect(screen.lines[22].hasSuffix("… / 200 "))
        store.releaseRanks()
        await app.settle()
        app.turn(on: screen)
        #expect(screen.lines[22].hasSuffix(" 110 / 200 "), "81st, then 29 on: \(screen.lines[22])")
    }

    @Test func aRowNearTheStartNeedsNoCount() throws {
        let store = try Fixture.store(Self.exchanges)
        var (window, query, kept) = try Self.sortedByDuration(from: 3, store)
        #expect(window.rankIsPending)
        #expect(window.positionText == "… / 200")
        try window.settleRank(store: store)
        #expect(window.positionText == "197 / 200")
        #expect(window.selectedRank == (try store.exchangeRank(query, of: kept)))

        query.order = ExchangeOrder(.time)
        try window.reload(query, store: store, height: 20, keeping: kept, follow: false)
        #expect(!window.rankIsPending, "fewer rows before it than the screen row: the rank is how many")
        #expect(window.positionText == "4 / 200")
    }

    /// The rows a new order shows are the same rows: no `COUNT` of the list before the frame, and a reversal knows
    /// the kept row's place without one (the other rows before it).
    @Test func aNewOrderOfTheSameRowsCountsNothingBeforeTheFrame() throws {
        let store = CountingStore(try Fixture.store(Self.exchanges))
        var window = ExchangeWindow()
        var query = ExchangeQuery()
        try window.reload(query, store: store, height: 20, keeping: nil, follow: false)
        #expect(store.totals == 1)
        try window.move(by: 30, query, store: store)
        let kept = try #require(window.selectedRow)
        #expect(window.positionText == "31 / 200")

        query.order = ExchangeOrder(.time, descending: true)
        try window.reload(query, store: store, height: 20, keeping: kept, follow: false)
        #expect(store.totals == 1 && store.ranks == 0)
        #expect(!window.rankIsPending)
        #expect(window.positionText == "170 / 200")
        #expect(window.selectedRank == (try store.exchangeRank(query, of: kept)))
        #expect(window.selectedRow?.id == kept.id)

        query.order = ExchangeOrder(.duration)
        let ranks = store.ranks
        try window.reload(query, store: store, height: 20, keeping: kept, follow: false)
        #expect(store.totals == 1 && store.ranks == ranks, "nothing counted before the frame")
        #expect(window.rankIsPending)
        try window.settleRank(store: store)
        #expect(window.selectedRank == (try store.exchangeRank(query, of: kept)))

        query.filter = try TraceFilter.parse("~m GET")
        try window.reload(query, store: store, height: 20, keeping: kept, follow: false)
        #expect(store.totals == 2, "a new filter is a new list: counted")
    }

    /// Rows that arrived between two orders are counted with the new order.
    @Test func arrivalsBeforeANewOrderAreCounted() throws {
        let inner = try Fixture.store(Self.exchanges)
        let store = CountingStore(inner)
        var window = ExchangeWindow()
        var query = ExchangeQuery()
        try window.reload(query, store: store, height: 20, keeping: nil, follow: false)
        try inner.write([Fixture.exchange(201)])
        query.order = ExchangeOrder(.time, descending: true)
        try window.reload(query, store: store, height: 20, keeping: window.selectedRow, follow: false)
        #expect(store.totals == 2)
        #expect(window.total == 201)
    }

    /// Arrivals while the count is out are the window's to add, not the count's: the count covers the list as it
    /// stood when asked, so an arrival before the kept row is counted once.
    @Test func arrivalsWhileTheCountIsOutAreCountedOnce() throws {
        let store = try Fixture.store(Self.exchanges)
        var (window, query, kept) = try Self.sortedByDurationFromTheMiddle(store)
        let request = try #require(window.rankRequest)
        // Shorter than every row so far: it sorts first, before the kept row.
        try store.write([Fixture.exchange(201, duration: 0.0001)])
        try window.poll(query, store: store, follow: false)
        // Counted as a background count would: after the arrival, over the list as it stood when asked.
        let applied = window.applyRank(ExchangeRankCount(request: request, rank: try store.exchangeRank(request.query, of: request.anchor)))
        #expect(applied)
        #expect(window.selectedRank == (try store.exchangeRank(query, of: kept)))
        #expect(window.total == 201)
    }

    /// A row committed between the poll's look at the change marker and its count of arrivals is counted by that
    /// poll, and not again by the next.
    @Test func anArrivalAfterTheMarkerIsCountedOnce() throws {
        let store = CountingStore(try Fixture.store(Self.exchanges))
        var window = ExchangeWindow()
        let query = ExchangeQuery()
        try window.reload(query, store: store, height: 20, keeping: nil, follow: false)
        try store.write([Fixture.exchange(201)])
        store.writeAfterNextRead([Fixture.exchange(202)])
        try window.poll(query, store: store, follow: false)
        try store.write([Fixture.exchange(203)])
        try window.poll(query, store: store, follow: false)
        #expect(window.total == 203)
        #expect(window.total == (try store.exchangeCount(query)))
    }

    /// A row committed between the look at the change marker and the count of the list is in the count, and not
    /// counted again by the next poll.
    @Test func aRowCommittedWhileTheListIsCountedIsCountedOnce() throws {
        let store = CountingStore(try Fixture.store(Self.exchanges))
        var window = ExchangeWindow()
        let query = ExchangeQuery()
        store.writeAfterNextRead([Fixture.exchange(201)])
        try window.reload(query, store: store, height: 20, keeping: nil, follow: false)
        try store.write([Fixture.exchange(202)])
        try window.poll(query, store: store, follow: false)
        #expect(window.total == 202)
        #expect(window.total == (try store.exchangeCount(query)))
    }

    /// An answer to a request the window no longer waits for changes nothing.
    @Test func aStaleAnswerIsIgnored() throws {
        let store = try Fixture.store(Self.exchanges)
        var (window, query, kept) = try Self.sortedByDurationFromTheMiddle(store)
        let old = try #require(window.rankRequest)
        query.order = ExchangeOrder(.status)
        try window.reload(query, store: store, height: 20, keeping: kept, follow: false)
        let applied = window.applyRank(ExchangeRankCount(request: old, rank: 7))
        #expect(!applied)
        #expect(window.rankIsPending)
        try window.top(query, store: store)
        #expect(!window.rankIsPending)
    }

    /// A window on exchange 101 of 200, then sorted by duration: its rank left to count.
    static func sortedByDurationFromTheMiddle(_ store: InMemoryTraceStore) throws
        -> (window: ExchangeWindow, query: ExchangeQuery, kept: TraceSummary)
    {
        try sortedByDuration(from: 100, store)
    }

    /// A window on the row `steps` below the first, then sorted by duration.
    static func sortedByDuration(from steps: Int, _ store: some TraceStore) throws
        -> (window: ExchangeWindow, query: ExchangeQuery, kept: TraceSummary)
    {
        var window = ExchangeWindow()
        var query = ExchangeQuery()
        try window.reload(query, store: store, height: 20, keeping: nil, follow: false)
        try window.move(by: steps, query, store: store)
        let kept = try #require(window.selectedRow)
        query.order = ExchangeOrder(.duration)
        try window.reload(query, store: store, height: 20, keeping: kept, follow: false)
        return (window, query, kept)
    }
}
