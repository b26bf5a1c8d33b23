import Foundation
import Loupe
import LoupeBoard
import LoupeQuery
import LoupeTrace
import LoupeTUI
import Testing

/// The circuits (`3`) and metrics (`4`) screens over a store with a breaker that opened, whole screens at 80×24
/// and 120×40, with the wall clock fixed.
@Suite struct BoardScreensTests {
    static let now = Fixture.epoch.addingTimeInterval(20)

    /// Exchanges 1–6 on api.example.com: 1–3 succeed, 4–5 get 503s (5 opens the breaker), 6 is refused.
    @Test func aLargeStoreIsReadAFewHundredExchangesAFrameAndKeysAreAnsweredMeanwhile() throws {
        let store = try Fixture.store((1...1_200).map { Fixture.exchange($0, status: 200, duration: 0.01) })
        let (app, screen) = Fixture.app(store, width: 120, height: 40)
        screen.press("4")
        app.turn(on: screen)
        let metrics = try #require(app.state.top as? MetricsScreen)
        #expect(metrics.metrics.lastSequence < 1_200)
        #expect(app.state.hasDeferredWork)
        #expect(screen.lines[38].contains("window 5m · sort name↑ · reading the store…"))
        screen.press("w")
        app.turn(on: screen)
        #expect(screen.lines[38].contains("window 15m"))
        for _ in 0..<10 where app.state.hasDeferredWork { app.turn(on: screen) }
        #expect((app.state.top as? MetricsScreen)?.metrics.lastSequence == 1_200)
        #expect(!screen.lines[38].contains("reading"))
    }

    static func exchanges() -> [TraceExchange] {
        func keyed(_ exchange: TraceExchange) -> TraceExchange {
            var exchange = exchange
            exchange.attempts = exchange.attempts.map { var a = $0; a.notes["circuit.key"] = "api.example.com"; return a }
            return exchange
        }
        let config = TraceEvent(kind: .circuitConfigured, at: Fixture.epoch, message: "config", attributes: [
            "key": "api.example.com", "failureRate": "50", "slowCallRate": "100", "slowCallMs": "60000",
            "minimumCalls": "4", "waitMs": "30000", "halfOpenCalls": "2", "windowCalls": "4",
        ])
        let open = TraceEvent(kind: .circuitTransition, at: Fixture.epoch.addingTimeInterval(5.2), message: "open", attributes: [
            "key": "api.example.com", "from": "closed", "to": "open", "reason": "failure rate 50% ≥ 50% over 4 calls",
            "probeAt": String(Fixture.epoch.timeIntervalSince1970 + 35.2),
        ])
        let refused = TraceEvent(kind: .shortCircuit, at: Fixture.epoch.addingTimeInterval(6), message: "refused",
                                 attributes: ["key": "api.example.com", "state": "open"])
        return [
            keyed(Fixture.exchange(1, status: 200, duration: 0.120, events: [config])),
            keyed(Fixture.exchange(2, status: 200, duration: 0.080)),
            keyed(Fixture.exchange(3, status: 200, duration: 0.300)),
            keyed(Fixture.exchange(4, status: 503, duration: 0.050, outcome: .httpError)),
            keyed(Fixture.exchange(5, method: "POST", url: "https://api.example.com/orders", status: 503, duration: 0.900,
                                   outcome: .httpError, attempts: 2, events: [open])),
            Fixture.exchange(6, url: "https://api.example.com/orders", status: nil, duration: 0, outcome: .shortCircuited,
                             error: "circuit open", attempts: 0, events: [refused]),
        ]
    }

    private func app(width: Int = 80, height: Int = 24) throws -> (TUIApp, InMemoryTerminal) {
        Fixture.app(try Fixture.store(Self.exchanges()), width: width, height: height, wallClock: { Self.now })
    }

    @Test func circuitsShowOpenWithReasonAndNextProbe() throws {
        for (width, height) in [(80, 24), (120, 40)] {
            let (app, screen) = try app(width: width, height: height)
            screen.press("3")
            app.turn(on: screen)
            ScreenSnapshot.check(screen, "circuits-\(width)x\(height)")
            let text = screen.lines.joined(separator: "\n")
            #expect(text.contains("OPEN"))
            #expect(text.contains("16.0 s"))  // probe at +35.2 s, seen at +20 s: 15.2 s, rounded up
            #expect(text.contains("failure rate 50% ≥ 50% over 4 calls"))
            // Every figure whole at any width: at 80 columns the panel's line wraps between figures, and the
            // chart's heading is one that fits its column.
            #expect(text.contains("window last 4 calls, min "), "\(text)")
            #expect(screen.lines[1].contains(width == 80 ? "PROBE 2 MIN" : "LAST 2 MIN"), "\(screen.lines[1])")
        }
    }

    @Test func enterShowsTheHistoryAndFJumpsToTheKeysExchanges() throws {
        let (app, screen) = try app()
        for key: Key in ["3", .enter] { screen.press(key) }
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "circuit-history")
        #expect(app.state.top.keyContext == .circuitHistory)
        screen.press("f")
        app.turn(on: screen)
        #expect(app.state.top.keyContext == .exchanges)
        #expect(app.state.session.filter == .or(.host("api.example.com"), .operation("api.example.com")))
    }

    @Test func metricsByHandAndWindowCycling() throws {
        for (width, height) in [(80, 24), (120, 40)] {
            let (app, screen) = try app(width: width, height: height)
            screen.press("4")
            app.turn(on: screen)
            ScreenSnapshot.check(screen, "metrics-\(width)x\(height)")
        }
        let (app, screen) = try app()
        screen.press("4")
        app.turn(on: screen)
        let metrics = try #require(app.state.top as? MetricsScreen)
        let all = try #require(metrics.rows(now: Self.now).first { $0.group == .all })
        // Six exchanges in 5 minutes; three failed (4, 5, 6); one retried (5); max 900 ms.
        #expect(all.counts.requests == 6)
        #expect(all.counts.errors == 3)
        #expect(all.counts.retried == 1)
        #expect(all.max == 0.9)
        screen.press("w")
        app.turn(on: screen)
        #expect((app.state.top as? MetricsScreen)?.window == .fifteenMinutes)
        screen.press("o")
        app.turn(on: screen)
        #expect((app.state.top as? MetricsScreen)?.sort == .rate)
    }

    @Test func boardsAreKeptWhenLeftAndContinueFromWhereTheyWere() throws {
        let store = try Fixture.store(Self.exchanges())
        let (app, screen) = Fixture.app(store, wallClock: { Self.now })
        for key: Key in ["3", "1"] { screen.press(key) }
        app.turn(on: screen)
        try store.write([Fixture.exchange(7, status: 200)])
        screen.press("3")
        app.turn(on: screen)
        let circuits = try #require(app.state.top as? CircuitsScreen)
        #expect(circuits.board.lastSequence == 7)
    }
}
