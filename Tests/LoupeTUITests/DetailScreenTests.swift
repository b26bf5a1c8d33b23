import Foundation
import Loupe
import LoupeTrace
import LoupeTUI
import Testing

/// The detail screen at 80×24: every tab and body view as a whole screen, tab switching by key and click,
/// search inside, scrolling a long body.
@Suite struct DetailScreenTests {
    static let exchange = Fixture.exchange(
        2, method: "POST", url: "https://api.example.com/orders?page=2", status: 201, duration: 0.420, attempts: 2,
        requestBody: Fixture.body(#"{"item":"book","qty":2,"price":1.10,"id":12345678901234567890}"#),
        responseBody: Fixture.body(#"{"order":{"id":"o-7","lines":[1,2.50,-3e2],"paid":true,"note":null}}"#),
        events: [TraceEvent(kind: "retry", at: Fixture.epoch.addingTimeInterval(2.2), message: "retrying after 503")])

    private func openDetail(width: Int = 80, height: Int = 24) throws -> (TUIApp, InMemoryTerminal) {
        let (app, screen) = Fixture.app(try Fixture.store([Self.exchange]), width: width, height: height)
        screen.press(.enter)
        app.turn(on: screen)
        return (app, screen)
    }

    @Test func everyTabAsAWholeScreen() throws {
        let (app, screen) = try openDetail()
        for tab in DetailTab.tabs(for: Self.exchange) {
            ScreenSnapshot.check(screen, "detail-\(tab.rawValue)")
            screen.press(.tab)
            app.turn(on: screen)
        }
        #expect((app.state.top as? DetailScreen)?.tab == .request, "Tab wraps around")
        screen.press(.backTab)
        app.turn(on: screen)
        #expect((app.state.top as? DetailScreen)?.tab == .timing)
    }

    @Test func bodyViewsCycleWithB() throws {
        let (app, screen) = try openDetail()
        screen.press(.tab, "b")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "detail-response-raw")
        screen.press("b")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "detail-response-hex")
        screen.press("b")
        app.turn(on: screen)
        #expect((app.state.top as? DetailScreen)?.bodyView == .pretty)
    }

    @Test func prettyJSONKeepsEveryNumberAsWritten() throws {
        let (_, screen) = try openDetail()
        #expect(screen.text.contains("\"price\": 1.10"))
        #expect(screen.text.contains("12345678901234567890"))
    }

    @Test func aClickOnATabShowsIt() throws {
        let (app, screen) = try openDetail()
        let tabRow = try #require(screen.row(containing: "Timing"))
        let column = try #require(screen.lines[tabRow].range(of: "Events")).lowerBound.utf16Offset(in: screen.lines[tabRow])
        screen.press(.mouse(MouseEvent(.press, x: column + 1, y: tabRow)))
        app.turn(on: screen)
        #expect((app.state.top as? DetailScreen)?.tab == .events)
    }

    @Test func searchFindsTextInTheTab() throws {
        let (app, screen) = try openDetail(height: 12)
        screen.press(.tab)
        screen.type("/paid")
        screen.press(.enter)
        app.turn(on: screen)
        let row = try #require(screen.row(containing: "\"paid\""))
        let column = try #require(screen.lines[row].range(of: "paid")).lowerBound.utf16Offset(in: screen.lines[row])
        #expect(screen.lastBuffer?[column, row].style == .searchHit)
    }

    @Test func aLongBodyScrollsAndDrawsOnlyWhatShows() throws {
        let lines = (1...5_000).map { "{\"n\":\($0)}" }.joined(separator: ",")
        var exchange = Self.exchange
        exchange.responseBody = Fixture.body("[" + lines + "]")
        let (app, screen) = Fixture.app(try Fixture.store([exchange]))
        screen.press(.enter, .tab, "G")
        app.turn(on: screen)
        #expect(screen.text.contains("\"n\": 5000"))
        #expect(screen.lines[22].contains("of 15,00") || screen.lines[22].contains("of 15"))
        screen.press("g")
        app.turn(on: screen)
        #expect(screen.lines[22].contains("lines 1–"))
    }

    @Test func qAndEscGoBack() throws {
        let (app, screen) = try openDetail()
        screen.press("q")
        #expect(app.turn(on: screen))
        #expect(app.state.top is ExchangesScreen)
        screen.press(.enter, .escape)
        app.turn(on: screen)
        #expect(app.state.top is ExchangesScreen)
    }
}
