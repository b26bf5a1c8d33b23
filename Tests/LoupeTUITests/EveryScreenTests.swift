import Foundation
import Loupe
import LoupeBoard
import LoupeQuery
import LoupeTrace
import LoupeTUI
import Testing

/// What a new user met on the screens besides the exchanges list (issue 25): `/` on the boards, a header count that
/// froze, a breaker history out of time order, the footer losing `? help`, metrics opening empty on an older
/// store, boards ignoring the filter, zoom losing the selection, sorts starting with the least wanted rows.
@Suite struct EveryScreenTests {
    static let now = BoardScreensTests.now

    /// The board's exchanges, plus two on a second key (pay.example.com), one of them a POST.
    static func exchanges() -> [TraceExchange] {
        func keyed(_ exchange: TraceExchange, _ key: String) -> TraceExchange {
            var exchange = exchange
            exchange.attempts = exchange.attempts.map { var a = $0; a.notes["circuit.key"] = key; return a }
            return exchange
        }
        return BoardScreensTests.exchanges() + [
            keyed(Fixture.exchange(7, url: "https://pay.example.com/charge", status: 200), "pay.example.com"),
            keyed(Fixture.exchange(8, method: "POST", url: "https://pay.example.com/charge", status: 200), "pay.example.com"),
        ]
    }

    private func app(_ exchanges: [TraceExchange] = exchanges(), width: Int = 80, height: Int = 24,
                     now: Date = now) throws -> (TUIApp, InMemoryTerminal) {
        Fixture.app(try Fixture.store(exchanges), width: width, height: height, wallClock: { now })
    }

    private func statusLine(_ screen: InMemoryTerminal) -> String { screen.lines[screen.lines.count - 2] }

    // MARK: 3. `/` finds what the boards show, with n/N and a hit count

    @Test func searchOnTheCircuitsBoardFindsKeysWithACount() throws {
        let (app, screen) = try app()
        screen.press("3", "/")
        screen.type("pay")
        screen.press(.enter)
        app.turn(on: screen)
        #expect(statusLine(screen).hasPrefix(" /pay: 1/1"), "\(statusLine(screen))")
        #expect(screen.lines[3].hasPrefix("pay.example.com"))
        #expect(screen.lastBuffer?[0, 3].style == .searchHit, "the hit is highlighted on the selected row")
        ScreenSnapshot.check(screen, "circuits-search")
        screen.press("/")
        screen.type("example")
        screen.press(.enter, "n")
        app.turn(on: screen)
        #expect(statusLine(screen).hasPrefix(" /example: 1/2"), "n wraps to the first key: \(statusLine(screen))")
        screen.press("N")
        app.turn(on: screen)
        #expect(statusLine(screen).hasPrefix(" /example: 2/2"))
        screen.press("/")
        screen.type("nothing-like-it")
        screen.press(.enter)
        app.turn(on: screen)
        #expect(statusLine(screen).hasPrefix(" not found: nothing-like-it"))
    }

    @Test func searchOnTheMetricsFindsOperationsAndHosts() throws {
        let (app, screen) = try app()
        screen.press("4", "/")
        screen.type("slow-op-that-is-not-there")
        screen.press(.enter)
        app.turn(on: screen)
        #expect(statusLine(screen).hasPrefix(" not found"))
        screen.press("/")
        screen.type("op5")
        screen.press(.enter)
        app.turn(on: screen)
        #expect(statusLine(screen).hasPrefix(" /op5: 1/1"), "\(statusLine(screen))")
        ScreenSnapshot.check(screen, "metrics-search")
        screen.press("/")
        screen.type("host")
        screen.press(.enter, "n")
        app.turn(on: screen)
        #expect(statusLine(screen).hasPrefix(" /host: 2/2"), "\(statusLine(screen))")
    }

    @Test func searchInABreakersHistoryFindsReasonsAndExchanges() throws {
        let (app, screen) = try app()
        screen.press("3", .enter, "/")
        screen.type("#5")
        screen.press(.enter)
        app.turn(on: screen)
        #expect(app.state.top.keyContext == .circuitHistory)
        #expect(statusLine(screen).hasPrefix(" /#5: 1/1"), "\(statusLine(screen))")
        screen.press("/")
        screen.type("failure rate")
        screen.press(.enter)
        app.turn(on: screen)
        #expect(statusLine(screen).hasPrefix(" /failure rate: 1/1"))
    }

    @Test func detailAndHelpSayWhichHitOfHowMany() throws {
        let (app, screen) = try app()
        screen.press("?", "/")
        screen.type("jump")
        screen.press(.enter)
        app.turn(on: screen)
        // g and G in the exchanges' keys, and top and bottom among the commands.
        #expect(statusLine(screen).hasPrefix(" /jump: 1/4"), "\(statusLine(screen))")
        screen.press("n")
        app.turn(on: screen)
        #expect(statusLine(screen).hasPrefix(" /jump: 2/4"))
    }

    // MARK: 6. A breaker's history in time order

    /// Exchange 2 is stored after exchange 1 but its request started first: its transition (closed → open at
    /// +5.1 s) is older than exchange 1's (open → half-open at +5.3 s).
    @Test func aBreakersHistoryIsInTimeOrderWhateverTheStoreOrder() throws {
        func transition(_ at: Double, _ from: String, _ to: String) -> TraceEvent {
            TraceEvent(kind: .circuitTransition, at: Fixture.epoch.addingTimeInterval(at), message: "\(from) → \(to)",
                       attributes: ["key": "api.example.com", "from": from, "to": to, "reason": "\(from) to \(to)"])
        }
        let later = Fixture.exchange(1, status: 200, events: [transition(5.3, "open", "half-open")])
        let earlier = Fixture.exchange(2, status: 503, outcome: .httpError, events: [transition(5.1, "closed", "open")])
        let (app, screen) = try app([later, earlier])
        screen.press("3")
        app.turn(on: screen)
        #expect(screen.text.contains("HALF-OPEN"), "the newest transition sets the state")
        screen.press(.enter)
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "circuit-history-time-order")
        let rows = screen.lines.dropFirst(2).filter { $0.contains(" → ") }
        #expect(rows.count == 2)
        #expect(rows.first?.contains("closed → open") == true && rows.last?.contains("open → half-open") == true)
    }

    // MARK: 4. The header's count is live on every screen

    @Test func theHeaderCountsArrivalsOnTheTimelineAndUnderADetail() throws {
        let store = try Fixture.store(Array(Self.exchanges().prefix(3)))
        let (app, screen) = Fixture.app(store, wallClock: { Self.now })
        screen.press("2")
        app.turn(on: screen)
        #expect(screen.lines[0].contains(" 3 · time↑"))
        try store.write([Fixture.exchange(4), Fixture.exchange(5)])
        app.refresh()
        app.turn(on: screen)
        #expect(screen.lines[0].contains(" 5 · time↑"), "\(screen.lines[0])")
        #expect(statusLine(screen).hasSuffix("5 / 5 "))
        screen.press("1", .enter)
        app.turn(on: screen)
        try store.write([Fixture.exchange(6)])
        app.refresh()
        app.turn(on: screen)
        #expect(screen.lines[0].contains(" 6 · time↑"), "under a detail: \(screen.lines[0])")
        screen.press("3")
        app.turn(on: screen)
        try store.write([Fixture.exchange(7)])
        app.refresh()
        app.turn(on: screen)
        #expect(screen.lines[0].contains(" 7 · time↑"), "on the circuits board: \(screen.lines[0])")
    }

    // MARK: 16. `? help` is the last hint to go

    @Test func narrowFootersKeepHelp() throws {
        let (app, screen) = try app()
        #expect(screen.lines[23].hasPrefix("Enter open  f filter  / search  o order  m mark  x export  ? help  q quit"),
                "exchanges at 80: \(screen.lines[23])")
        for key: Key in ["2", "3", "4", .enter] {
            screen.press(key)
            app.turn(on: screen)
            #expect(screen.lines[23].contains("? help"), "\(app.state.top.title): \(screen.lines[23])")
        }
        let (narrow, small) = try self.app(width: 40, height: 12)
        narrow.turn(on: small)
        #expect(small.lines[11].contains("? help"), "40 columns: \(small.lines[11])")
        ScreenSnapshot.check(small, "exchanges-40x12")
    }

    // MARK: 12. Metrics on an older store opens where the data is

    @Test func metricsOnAnOlderStoreOpensOnAWindowWithData() throws {
        let (app, screen) = try app(now: Fixture.epoch.addingTimeInterval(3 * 3_600))
        screen.press("4")
        app.turn(on: screen)
        let metrics = try #require(app.state.top as? MetricsScreen)
        #expect(metrics.window == .all)
        #expect(statusLine(screen).hasPrefix(" nothing in the last 5m: window all (w cycles)"))
        ScreenSnapshot.check(screen, "metrics-older-store")
        screen.press("w")
        app.turn(on: screen)
        #expect((app.state.top as? MetricsScreen)?.window == .oneMinute, "w still cycles every window")
        #expect(screen.text.contains("No exchanges in the last 1m"))
    }

    @Test func metricsOnALiveStoreStaysOnFiveMinutes() throws {
        let (app, screen) = try app()
        screen.press("4")
        app.turn(on: screen)
        #expect((app.state.top as? MetricsScreen)?.window == .fiveMinutes)
    }

    // MARK: 13. The boards count what the filter shows

    @Test func metricsAndCircuitsHonourTheSessionFilter() throws {
        let (app, screen) = try app()
        screen.press("f")
        screen.type("~m POST")
        screen.press(.enter, "4")
        app.turn(on: screen)
        let metrics = try #require(app.state.top as? MetricsScreen)
        let all = try #require(metrics.rows(now: Self.now).first { $0.group == .all })
        #expect(all.counts.requests == 2, "exchanges 5 and 8 are the POSTs")
        screen.press("3")
        app.turn(on: screen)
        let circuits = try #require(app.state.top as? CircuitsScreen)
        #expect(circuits.board.rows(now: Self.now).map(\.key) == ["api.example.com", "pay.example.com"])
        screen.press("f", .ctrl("u"))
        screen.type("~d pay.example.com")
        screen.press(.enter)
        app.turn(on: screen)
        #expect(app.state.top.keyContext == .circuits, "f filters on the board and stays there")
        let filtered = try #require(app.state.top as? CircuitsScreen)
        #expect(filtered.board.rows(now: Self.now).map(\.key) == ["pay.example.com"], "a new filter reads the board again")
        ScreenSnapshot.check(screen, "circuits-filtered")
    }

    // MARK: 18. Zoom keeps the selection on the axis

    @Test func zoomKeepsTheSelectedRowOnTheAxis() throws {
        let (app, screen) = try app(TimelineScreenTests.exchanges(), now: Fixture.epoch.addingTimeInterval(30))
        screen.press("2", "g")
        app.turn(on: screen)
        for _ in 0..<4 { screen.press("+") }
        app.turn(on: screen)
        let timeline = try #require(app.state.top as? TimelineScreen)
        let selected = try #require(timeline.window.selectedRow)
        #expect(timeline.axis.span == 0.5)
        #expect(selected.startedAt >= timeline.axis.start && selected.startedAt <= timeline.axis.end,
                "the first row (at +1 s) stays between \(timeline.axis.start) and \(timeline.axis.end)")
        ScreenSnapshot.check(screen, "timeline-zoomed-on-selection")
    }

    // MARK: 22. A new sort starts with what a person looks for first

    @Test func newSortKeysStartWithTheWorstFirst() throws {
        let (app, screen) = try app()
        screen.press("o")
        app.turn(on: screen)
        #expect(app.state.session.order == ExchangeOrder(.duration, descending: true))
        #expect(statusLine(screen).hasPrefix(" sorted by duration ↓"))
        screen.press("o")
        app.turn(on: screen)
        #expect(app.state.session.order == ExchangeOrder(.status, descending: true))
        #expect(screen.lines[1].contains("CODE↓ HOST"), "a space after the sort mark: \(screen.lines[1])")
        screen.press("o", "o")
        app.turn(on: screen)
        #expect(app.state.session.order == ExchangeOrder(.host, descending: false))
        screen.press(":")
        screen.type("sort size")
        screen.press(.enter)
        app.turn(on: screen)
        #expect(app.state.session.order == ExchangeOrder(.size, descending: true))
        screen.press("4", "o")
        app.turn(on: screen)
        let metrics = try #require(app.state.top as? MetricsScreen)
        #expect(metrics.sort == .rate && metrics.descending)
    }
}

/// Issue 25 #23: a rejected edit's message was cut at the screen's edge, hiding where the problem was; and an
/// event's ids were cut in the middle when its line wrapped.
@Suite struct LongTextTests {
    @Test func aLongMessageGoesOnOverTheFooterLine() {
        var state = TUIState(storeName: "/tmp/traces.sqlite", size: Size(width: 80, height: 24), canReplay: true)
        state.status = .error("edit: line 4: 'X-Trace-Token abc' is not a header (a header is 'Name: value'); nothing "
                              + "was sent (your text is kept: e reopens it)")
        let lines = TUIRenderer.render(state).lines
        // Broken between words: the first line as far as it goes, the rest on the footer's line.
        #expect(lines[22] == " edit: line 4: 'X-Trace-Token abc' is not a header (a header is 'Name:          ")
        #expect(lines[23].hasPrefix(" value'); nothing was sent (your text is kept: e reopens it)   "))
        state.status = StatusMessage("short")
        #expect(TUIRenderer.render(state).lines[23].hasPrefix("Enter open"), "the hints come back")
    }

    @Test func wrappedLinesBreakBetweenWordsNotInsideIDs() {
        let line = StyledLine("  11:07:32.463 circuit  api.example.com closed → open (joined #1234 trace "
                              + "0af7651916cd43dd8448eb211c80319c span b7ad6b7169203331)")
        let wrapped = line.wrapped(to: 60).map(\.text)
        #expect(wrapped.count == 3)
        for text in wrapped { #expect(DisplayWidth.of(text) <= 60) }
        #expect(wrapped.contains { $0.contains("0af7651916cd43dd8448eb211c80319c") }, "\(wrapped)")
        #expect(wrapped.contains { $0.contains("b7ad6b7169203331") })
        let token = StyledLine(String(repeating: "x", count: 130))
        #expect(token.wrapped(to: 60).map { DisplayWidth.of($0.text) } == [60, 60, 14], "a run without spaces is cut")
    }
}

/// The walk at 80 columns: the help's longer descriptions were cut at the edge.
@Suite struct HelpWrapTests {
    @Test func helpWrapsLongDescriptionsUnderTheirColumn() throws {
        let (app, screen) = Fixture.app(try Fixture.store(BoardScreensTests.exchanges()))
        screen.press("4", "?")
        app.turn(on: screen)
        let filter = try #require(screen.lines.firstIndex { $0.hasPrefix("  f   ") })
        #expect(screen.lines[filter].hasSuffix("Filter the whole store: exchanges, timeline, circuits and  "), "\(screen.lines[filter])")
        #expect(screen.lines[filter + 1].hasPrefix(String(repeating: " ", count: 21) + "metrics (empty clears; ↑/↓ history)"))
        ScreenSnapshot.check(screen, "help-metrics-80x24")
    }
}
