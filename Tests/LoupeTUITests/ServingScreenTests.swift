import Foundation
import Loupe
import LoupeTUI
import LoupeTrace
import Synchronization
import Testing

/// `loupe tui --serve`: the title says where the recordings are served, the first status line is the server's
/// start line, and `Z` (`reset-scenarios`) starts the sequences over and says so.
@Suite struct ServingScreenTests {
    static let serving = ServingStatus(
        address: "http://127.0.0.1:8080",
        summary: "loupe serve: 2 recordings from /tmp/recorded.har on http://127.0.0.1:8080; misses are answered 404 and never sent upstream; recording into /tmp/seen.sqlite")

    /// How many times the server was asked to start over.
    final class Resets: Sendable {
        let count = Mutex(0)
    }

    static func app(serving: ServingStatus?, resets: Resets, width: Int = 100) throws -> (TUIApp, InMemoryTerminal) {
        let served = TraceEvent(kind: .served, at: Fixture.epoch, message: "served recording #1", attributes: ["recording": "#1"])
        let store = try Fixture.store([
            Fixture.exchange(1, url: "http://127.0.0.1:8080/status", status: 503, outcome: .httpError, events: [served]),
            Fixture.exchange(2, url: "http://127.0.0.1:8080/status", status: 200, events: [served]),
        ])
        let app = TUIApp(store: store, storeName: "/tmp/seen.sqlite", replayer: nil, timeZone: .gmt,
                         keymap: .standard, history: InMemoryPromptHistory(), size: Size(width: width, height: 24),
                         now: { Fixture.clock.now }, wallClock: { Fixture.epoch.addingTimeInterval(60) })
        if let serving {
            app.serving = serving
            app.resetScenarios = { resets.count.withLock { $0 += 1 } }
        }
        let screen = InMemoryTerminal(width: width, height: 24)
        app.refresh()
        app.turn(on: screen)
        return (app, screen)
    }

    @Test func theTitleNamesTheAddressAndTheStatusLineTheStartLine() throws {
        let (_, screen) = try Self.app(serving: Self.serving, resets: Resets())
        ScreenSnapshot.check(screen, "serving-100x24")
        #expect(screen.lines[0].contains("│ serving http://127.0.0.1:8080"))
        #expect(screen.lines[22].contains("2 recordings from /tmp/recorded.har"))
    }

    @Test func zStartsTheSequencesOverAndSaysSo() throws {
        let resets = Resets()
        let (app, screen) = try Self.app(serving: Self.serving, resets: resets)
        screen.press("Z")
        app.turn(on: screen)
        #expect(resets.count.withLock { $0 } == 1)
        #expect(screen.lines[22].contains("scenarios reset: every recorded sequence starts over"))
        // The same command by name, from the detail screen.
        screen.press(Key.enter, ":")
        screen.type("reset-scenarios")
        screen.press(Key.enter)
        app.turn(on: screen)
        #expect(resets.count.withLock { $0 } == 2)
        #expect(screen.lines[22].contains("scenarios reset"))
    }

    @Test func withoutServingZSaysHowToServe() throws {
        let resets = Resets()
        let (app, screen) = try Self.app(serving: nil, resets: resets)
        #expect(!screen.lines[0].contains("serving"))
        screen.press("Z")
        app.turn(on: screen)
        #expect(screen.lines[22].contains("not serving: loupe tui --serve SOURCE serves a recording"))
        #expect(resets.count.withLock { $0 } == 0)
    }
}
