import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeTUI
import Testing

/// The timeline (`2`): exchanges on one time axis, attempts as segments with backoff between them, breaker
/// refusals and errors marked; zoom, pan, follow, Enter, and the exchanges filter.
@Suite struct TimelineScreenTests {
    /// 1–3 succeed (3 is a 2 ms call); 4 is retried after a 503 with a 0.6 s backoff; 5 fails without a
    /// response; 6 is refused by the breaker; 7 is on another host.
    static func exchanges() -> [TraceExchange] {
        var quick = Fixture.exchange(3, duration: 0.002)
        quick.attempts[0].endedAt = quick.startedAt.addingTimeInterval(0.002)
        var retried = Fixture.exchange(4, status: 200, duration: 1.2, attempts: 2)
        retried.attempts[0].endedAt = retried.startedAt.addingTimeInterval(0.3)
        retried.attempts[1].startedAt = retried.startedAt.addingTimeInterval(0.9)
        retried.attempts[1].endedAt = retried.startedAt.addingTimeInterval(1.2)
        var failed = Fixture.exchange(5, status: nil, duration: 0.4, outcome: .transportError, error: "connection reset")
        failed.attempts[0].endedAt = failed.startedAt.addingTimeInterval(0.4)
        let refusal = TraceEvent(kind: .shortCircuit, at: Fixture.epoch.addingTimeInterval(6), message: "refused",
                                 attributes: ["key": "api.example.com", "state": "open"])
        /// One attempt lasting the whole exchange.
        func whole(_ exchange: TraceExchange) -> TraceExchange {
            var exchange = exchange
            exchange.attempts[0].endedAt = exchange.endedAt
            return exchange
        }
        return [
            whole(Fixture.exchange(1, duration: 0.5)),
            whole(Fixture.exchange(2, status: 404, duration: 0.25, outcome: .httpError)),
            quick, retried, failed,
            Fixture.exchange(6, status: nil, duration: 0, outcome: .shortCircuited, error: "circuit open", attempts: 0,
                             events: [refusal]),
            whole(Fixture.exchange(7, url: "https://other.example.org/slow", duration: 2.5)),
        ]
    }

    private func app(width: Int = 80, height: Int = 24) throws -> (TUIApp, InMemoryTerminal) {
        Fixture.app(try Fixture.store(Self.exchanges()), width: width, height: height,
                    wallClock: { Fixture.epoch.addingTimeInterval(30) })
    }

    @Test func wholeScreens() throws {
        for (width, height) in [(80, 24), (120, 40)] {
            let (app, screen) = try app(width: width, height: height)
            screen.press("2")
            app.turn(on: screen)
            ScreenSnapshot.check(screen, "timeline-\(width)x\(height)")
            let text = screen.lines.joined(separator: "\n")
            #expect(text.contains("┈"))  // the backoff of exchange 4
            #expect(text.contains("✕"))  // exchange 5's error
            #expect(text.contains("⊘"))  // exchange 6's refusal
        }
    }

    @Test func aTwoMillisecondCallOnATenSecondAxisStillShows() throws {
        let (app, screen) = try app()
        screen.press("2")
        app.turn(on: screen)
        let timeline = try #require(app.state.top as? TimelineScreen)
        #expect(timeline.axis.span == 10)
        // Row 3 (the 2 ms call): something drawn right of the label column's bar.
        let row = screen.lines[1 + 1 + 2]  // title bar, axis heading, third exchange
        let bars = row.split(separator: "│", maxSplits: 1).last.map(String.init) ?? ""
        #expect(bars.contains("▏"))
    }

    @Test func zoomPanAndFollow() throws {
        let (app, screen) = try app()
        screen.press("2")
        screen.press("+")
        app.turn(on: screen)
        var timeline = try #require(app.state.top as? TimelineScreen)
        #expect(timeline.axis.span == 5)
        let end = timeline.axis.end
        screen.press(.left)
        app.turn(on: screen)
        timeline = try #require(app.state.top as? TimelineScreen)
        #expect(timeline.axis.end == end.addingTimeInterval(-1.25))
        #expect(app.state.top.keyContext == .timeline)  // ← pans here, it does not go back
        screen.press("-")
        screen.press("-")
        app.turn(on: screen)
        timeline = try #require(app.state.top as? TimelineScreen)
        #expect(timeline.axis.span == 20)
        screen.press("F")
        app.turn(on: screen)
        timeline = try #require(app.state.top as? TimelineScreen)
        #expect(app.state.session.follow)
        // Following: the newest end (exchange 7, ending at +9.5 s) sits at the right edge.
        #expect(abs(timeline.axis.end.timeIntervalSince(Fixture.epoch.addingTimeInterval(9.5)) - 0.4) < 0.001)
    }

    @Test func enterOpensTheDetailAndTheFilterApplies() throws {
        let (app, screen) = try app()
        for key: Key in ["2", "g", "j", .enter] { screen.press(key) }
        app.turn(on: screen)
        #expect(app.state.top.keyContext == .detail)
        #expect(app.state.top.selection?.id == Fixture.id(2))
        app.apply(.command(.filter, argument: "~d other.example.org"))
        screen.press("2")
        app.turn(on: screen)
        let timeline = try #require(app.state.top as? TimelineScreen)
        #expect(timeline.window.rows.map(\.id) == [Fixture.id(7)])
    }
}
