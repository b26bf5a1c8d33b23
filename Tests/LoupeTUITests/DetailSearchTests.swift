import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
@testable import LoupeTUI
import Testing

/// `/` in the detail looks in every tab (issue 49): a hit in another tab shows that tab, the status line says
/// which tabs hold the text, and `n`/`N` go on through the tabs, message payloads included.
@Suite("Search across the detail's tabs")
struct DetailSearchTests {
    /// A WebSocket exchange whose `BTC` is in the request's URL, its response headers and two messages' payloads,
    /// and whose `retrying` is only in its events.
    static func exchange() -> TraceExchange {
        var exchange = MessagesPaneTests.exchange()
        exchange.url = "wss://stream.example.com/ticks?pair=BTC"
        exchange.responseHeaders = [TraceHeader(name: "X-Pair", value: "BTC-USD")]
        exchange.events = [TraceEvent(kind: "retry", at: MessagesPaneTests.start, message: "retrying after 503")]
        return exchange
    }

    private func openDetail(_ exchange: TraceExchange = exchange()) throws -> (TUIApp, InMemoryTerminal) {
        let (app, screen) = Fixture.app(try Fixture.store([exchange]), width: 80, height: 24)
        screen.press(.enter)
        app.turn(on: screen)
        return (app, screen)
    }

    private func detail(_ app: TUIApp) -> DetailScreen? { app.state.top as? DetailScreen }

    private func search(_ text: String, on screen: InMemoryTerminal, _ app: TUIApp) {
        screen.type("/" + text)
        screen.press(.enter)
        app.turn(on: screen)
    }

    @Test func aWordInAnotherTabShowsThatTabAndSaysWhereTheHitsAre() throws {
        let (app, screen) = try openDetail()
        #expect(detail(app)?.tab == .request)
        search("retrying", on: screen, app)
        #expect(detail(app)?.tab == .events)
        #expect(app.state.status?.text == "/retrying: 1/1 · Events 1")
        ScreenSnapshot.check(screen, "detail-search-other-tab")
    }

    @Test func nAndNGoThroughEveryTabMessagesIncluded() throws {
        let (app, screen) = try openDetail()
        search("btc", on: screen, app)
        // The request line and the query's `pair`, the response's header, and two messages' payloads (the
        // subscription and the BTC tick; the ETH tick holds none).
        let places = "Request 2, Response 1, Messages 2"
        var visits: [String] = []
        for _ in 1...5 {
            let shown = detail(app)
            let place = shown?.tab == .messages ? "messages #\(shown?.messages?.selected ?? -1)" : shown?.tab.rawValue ?? "-"
            visits.append(place + " " + (app.state.status?.text ?? ""))
            if visits.count == 5 { ScreenSnapshot.check(screen, "detail-search-messages") }
            screen.press("n")
            app.turn(on: screen)
        }
        #expect(visits == [
            "request /btc: 1/5 · \(places)", "request /btc: 2/5 · \(places)", "response /btc: 3/5 · \(places)",
            "messages #0 /btc: 4/5 · \(places)", "messages #1 /btc: 5/5 · \(places)",
        ])
        #expect(detail(app)?.tab == .request, "n wraps around to the first tab")
        #expect(app.state.status?.text == "/btc: 1/5 · \(places)")
        screen.press("N")
        app.turn(on: screen)
        #expect(detail(app)?.tab == .messages, "N goes back round to the last hit")
        #expect(detail(app)?.messages?.selected == 1)
        #expect(app.state.status?.text == "/btc: 5/5 · \(places)")
        screen.press("N")
        app.turn(on: screen)
        #expect(detail(app)?.messages?.selected == 0)
        screen.press("N", "N")
        app.turn(on: screen)
        #expect(detail(app)?.tab == .request)
        #expect(app.state.status?.text == "/btc: 2/5 · \(places)")
    }

    @Test func textNowhereLeavesTheTabAlone() throws {
        let (app, screen) = try openDetail()
        screen.press(.tab)
        app.turn(on: screen)
        search("nowhere-at-all", on: screen, app)
        #expect(detail(app)?.tab == .response)
    }
}
