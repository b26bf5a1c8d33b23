import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeTUI
import Testing

/// The exchanges list at 80×24, whole screens compared: sort, reverse, marks, search, follow, mouse.
@Suite struct ExchangesScreenTests {
    static let exchanges = [
        Fixture.exchange(1, url: "https://api.example.com/users/1", status: 200, duration: 0.120,
                         responseBody: Fixture.body(String(repeating: "x", count: 2048))),
        Fixture.exchange(2, method: "POST", url: "https://api.example.com/orders", status: 503, duration: 0.950,
                         attempts: 3),
        Fixture.exchange(3, url: "https://cdn.example.com/logo.png", status: nil, duration: 0.050,
                         outcome: .transportError, error: "connection refused"),
        Fixture.exchange(4, method: "DELETE", url: "https://api.example.com/orders/7", status: 204, duration: 0.300),
    ]

    private func app() throws -> (TUIApp, InMemoryTerminal) {
        Fixture.app(try Fixture.store(Self.exchanges))
    }

    private func press(_ keys: Key..., on screen: InMemoryTerminal, _ app: TUIApp) {
        for key in keys { screen.press(key) }
        app.turn(on: screen)
    }

    @Test func theListFollowsTheNewest() throws {
        let (_, screen) = try app()
        ScreenSnapshot.check(screen, "exchanges")
        #expect(screen.lastBuffer?[2, 5].style == .selection)
        #expect(screen.lastBuffer?[23, 3].style == .statusServerError)
    }

    @Test func oCyclesTheSortAndVReverses() throws {
        let (app, screen) = try app()
        // A new sort by duration starts with the slowest (issue 25 #22); v gives the fastest first.
        press("o", on: screen, app)
        ScreenSnapshot.check(screen, "exchanges-sorted-duration")
        #expect(app.state.exchanges.window.rows.map(\.id) == [Fixture.id(2), Fixture.id(4), Fixture.id(1), Fixture.id(3)])
        press("v", on: screen, app)
        ScreenSnapshot.check(screen, "exchanges-sorted-duration-reversed")
        #expect(app.state.exchanges.window.rows.map(\.id) == [Fixture.id(3), Fixture.id(1), Fixture.id(4), Fixture.id(2)])
        // The selected exchange stays selected across sort changes.
        #expect(app.state.exchanges.window.selectedRow?.id == Fixture.id(4))
        for _ in 0..<4 { press("o", on: screen, app) }
        // status ↓, size ↓, host ↑, operation ↑: each key starts in its own direction, whatever v did before.
        #expect(app.state.session.order == ExchangeOrder(.operation, descending: false))
        press("o", on: screen, app)
        #expect(app.state.session.order.key == .time)
    }

    @Test func marksAndMarkedOnly() throws {
        let (app, screen) = try app()
        // m marks and moves on, so marking a run of rows is m m m.
        press("g", "j", "m", "m", on: screen, app)
        #expect(app.state.session.marks == [Fixture.id(2), Fixture.id(3)])
        press("M", on: screen, app)
        ScreenSnapshot.check(screen, "exchanges-marked-only")
        press("M", "U", on: screen, app)
        #expect(app.state.session.marks.isEmpty)
        #expect(app.state.exchanges.window.total == 4)
        #expect(screen.lines[22].contains("unmarked 2"))
    }

    @Test func searchMovesBetweenHitsAndHighlightsThem() throws {
        let (app, screen) = try app()
        press("g", "/", "o", "r", "d", on: screen, app)
        ScreenSnapshot.check(screen, "exchanges-search-typing")
        #expect(app.state.exchanges.window.selectedRow?.id == Fixture.id(2))
        #expect(screen.lastBuffer?[36, 3].style == .selection)
        press(.enter, "n", on: screen, app)
        #expect(app.state.exchanges.window.selectedRow?.id == Fixture.id(4))
        #expect(screen.lastBuffer?[44, 5].style == .searchHit && screen.lastBuffer?[43, 5].style == .selection)
        press("n", on: screen, app)
        #expect(app.state.exchanges.window.selectedRow?.id == Fixture.id(2), "wraps around")
        press("N", on: screen, app)
        #expect(app.state.exchanges.window.selectedRow?.id == Fixture.id(4))
        press("/", "z", "z", "z", on: screen, app)
        #expect(screen.lines[23].contains("not found"))
    }

    @Test func arrivalsShowInEverySortAndFollowSelectsTheNewest() throws {
        let store = try Fixture.store(Self.exchanges)
        let (app, screen) = Fixture.app(store)
        press("o", "v", on: screen, app) // by duration, fastest first: the newest (#4, 300 ms) is third
        #expect(app.state.session.follow, "following from the start")
        try store.write([Fixture.exchange(5, url: "https://api.example.com/slow", duration: 2.5)])
        app.refresh()
        app.turn(on: screen)
        #expect(app.state.exchanges.window.selectedRow?.id == Fixture.id(5))
        #expect(screen.lines[22].contains("5 / 5"))
        press("k", on: screen, app)
        #expect(!app.state.session.follow, "moving up stops following")
        try store.write([Fixture.exchange(6, url: "https://api.example.com/fast", duration: 0.001)])
        app.refresh()
        app.turn(on: screen)
        #expect(app.state.exchanges.window.selectedRow?.id == Fixture.id(2), "the selection stays put")
        #expect(screen.lines[22].contains("5 / 6"), "a faster arrival sorts before it: its rank moves")
        ScreenSnapshot.check(screen, "exchanges-arrival-paused")
    }

    @Test func clicksSelectDoubleClicksOpenAndTheWheelScrolls() throws {
        let (app, screen) = try app()
        screen.press(.mouse(MouseEvent(.press, x: 10, y: 2)))
        app.turn(on: screen)
        #expect(app.state.exchanges.window.selectedRow?.id == Fixture.id(1))
        screen.press(.mouse(MouseEvent(.wheelDown, x: 10, y: 2)))
        app.turn(on: screen)
        #expect(app.state.exchanges.window.selectedRow?.id == Fixture.id(4))
        screen.press(.mouse(MouseEvent(.press, x: 10, y: 3)))
        app.turn(on: screen)
        Fixture.clock.advance(by: .milliseconds(100))
        screen.press(.mouse(MouseEvent(.press, x: 10, y: 3)))
        app.turn(on: screen)
        #expect(app.state.top is DetailScreen)
        #expect(app.state.top.selection?.id == Fixture.id(2))
        // Two presses far apart in time are two clicks, not a double click.
        press(.escape, on: screen, app)
        screen.press(.mouse(MouseEvent(.press, x: 10, y: 4)))
        app.turn(on: screen)
        Fixture.clock.advance(by: .seconds(1))
        screen.press(.mouse(MouseEvent(.press, x: 10, y: 4)))
        app.turn(on: screen)
        #expect(app.state.top is ExchangesScreen)
    }

    @Test func anEmptyStoreAndAnEmptyFilterSayWhy() throws {
        let (app, screen) = Fixture.app(try Fixture.store([]))
        ScreenSnapshot.check(screen, "exchanges-empty")
        try Fixture.store([]).write([])
        let (filtered, filteredScreen) = try self.app()
        filtered.apply(.command(.filter, argument: "~c 418"))
        filtered.turn(on: filteredScreen)
        ScreenSnapshot.check(filteredScreen, "exchanges-filter-matches-nothing")
        // Only what narrows the list is named as the way out: `M` is not, while all exchanges are shown.
        var text = filteredScreen.lines.joined(separator: "\n")
        #expect(text.contains("f edits the filter (an empty one clears it)."))
        #expect(!text.contains("M shows all"))
        let (marked, markedScreen) = try self.app()
        press("m", "M", on: markedScreen, marked)
        marked.apply(.command(.filter, argument: "~c 418"))
        marked.turn(on: markedScreen)
        text = markedScreen.lines.joined(separator: "\n")
        #expect(text.contains("f edits the filter (an empty one clears it); M shows all, not only marked."))
        _ = app
    }
}
