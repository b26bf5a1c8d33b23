import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeFilter
import LoupeTUI
import Testing

/// The TUI end to end: an in-memory store, an 80×24 in-memory screen, keys typed, screen text asserted.
@Suite struct TUIAppTests {
    private let exchanges = [
        Fixture.exchange(1, url: "https://api.example.com/users/1", status: 200),
        Fixture.exchange(2, method: "POST", url: "https://api.example.com/orders", status: 503, attempts: 3,
                         requestBody: Fixture.body(#"{"qty":2,"item":"book"}"#),
                         responseBody: Fixture.body(#"{"error":"busy","retry":true}"#)),
        Fixture.exchange(3, url: "https://cdn.example.com/logo.png", status: nil, outcome: .transportError,
                         error: "connection reset"),
    ]

    @Test func theListShowsEveryRowWithTheNewestSelected() throws {
        let (app, screen) = Fixture.app(try Fixture.store(exchanges))
        #expect(screen.lines.count == 24)
        #expect(screen.lines[0].contains("/tmp/traces.sqlite"))
        #expect(screen.lines[0].contains(" 3 · time↑ · follow"))
        #expect(screen.lines[2].contains("GET     200  api.example.com/users/1"))
        #expect(screen.lines[3].contains("POST    503  api.example.com/orders"))
        #expect(screen.lines[3].contains("×3"))
        #expect(screen.lines[4].contains("GET     ERR  cdn.example.com/logo.png"))
        #expect(screen.lastBuffer?[0, 4].style == .selection)
        #expect(screen.lines[22].contains("3 / 3"))
        #expect(screen.lines[23].hasPrefix("Enter open  f filter  / search  o order  m mark  x export  ? help  q quit"))
        #expect(app.state.exchanges.window.selectedRow?.id == Fixture.id(3))
    }

    @Test("a count too long for the TRY column is marked, not cut (issue 44, item 17)")
    func aLongAttemptCountIsMarked() throws {
        let stormy = [Fixture.exchange(1, url: "https://api.example.com/stream", status: 200, attempts: 1176),
                      Fixture.exchange(2, url: "https://api.example.com/other", status: 200, attempts: 99)]
        let (_, screen) = Fixture.app(try Fixture.store(stormy))
        #expect(screen.lines[2].contains(" 99+ ") && !screen.lines[2].contains("×11"), "\(screen.lines[2])")
        #expect(screen.lines[3].contains(" ×99 "), "\(screen.lines[3])")
    }

    @Test func anIdleTurnRendersNothingAndAKeyRendersAFrame() throws {
        let (app, screen) = Fixture.app(try Fixture.store(exchanges))
        let rendered = app.renderCount
        #expect(rendered >= 1)
        app.turn(on: screen)
        app.turn(on: screen)
        #expect(app.renderCount == rendered)
        screen.press("k")
        app.turn(on: screen)
        #expect(app.renderCount == rendered + 1)
        #expect(app.state.exchanges.window.selectedRow?.id == Fixture.id(2))
        app.refresh()
        app.turn(on: screen)
        #expect(app.renderCount == rendered + 2)
    }

    @Test func whatAPollChangedIsDrawnBeforeTheTurnWaitsForAKey() throws {
        let store = try Fixture.store(Array(exchanges.prefix(2)))
        let (app, screen) = Fixture.app(store)
        try store.write([exchanges[2]])
        app.refresh()
        let drawn = screen.drawCount
        app.turn(on: screen, waitingUpTo: .milliseconds(100))
        #expect(screen.drawsBeforeLastWait == drawn + 1)
        #expect(screen.lines[22].contains("3 / 3"))
    }

    /// A poll refreshes the screen on top and the list the title bar counts (issue 25 #4: the header froze).
    @Test func aCoveredListKeepsCountingArrivalsForTheHeader() throws {
        let store = CountingStore(try Fixture.store(Array(exchanges.prefix(2))))
        let (app, screen) = Fixture.app(store)
        screen.press(.enter)
        app.turn(on: screen)
        try store.write([exchanges[2]])
        app.refresh()
        app.turn(on: screen)
        #expect(app.state.exchanges.window.total == 3, "read while covered, for the header")
        #expect(screen.lines[0].contains(" 3 · time↑"))
        screen.press(.escape)
        app.turn(on: screen)
        #expect(app.state.exchanges.window.total == 3)
        #expect(screen.lines[22].contains("3 / 3"), "still following the newest: \(screen.lines[22])")
    }

    @Test func enterShowsTheDetailAndEscGoesBack() throws {
        let (app, screen) = Fixture.app(try Fixture.store(exchanges))
        screen.press("k", .enter)
        app.turn(on: screen)
        #expect(screen.lines[1].hasPrefix("POST https://api.example.com/orders"))
        #expect(screen.text.contains("Request headers (1)\n  Accept: application/json"))
        #expect(screen.text.contains("\"item\": \"book\""))
        screen.press(.tab)
        app.turn(on: screen)
        #expect(screen.text.contains("503 Service Unavailable"))
        screen.press(.escape)
        app.turn(on: screen)
        #expect(screen.lines[1].contains("START↑"))
        #expect(screen.lastBuffer?[0, 3].style == .selection)
    }

    @Test func qGoesBackFromDetailAndQuitsFromTheList() throws {
        let (app, screen) = Fixture.app(try Fixture.store(exchanges))
        screen.press(.enter, "q")
        #expect(app.turn(on: screen))
        #expect(app.state.top is ExchangesScreen)
        screen.press("q")
        #expect(!app.turn(on: screen))
        #expect(app.hasQuit)
    }

    @Test func questionMarkShowsHelpAndEscClosesIt() throws {
        let (app, screen) = Fixture.app(try Fixture.store(exchanges))
        screen.press("?")
        app.turn(on: screen)
        let help = try #require(app.state.top as? HelpScreen).lines.map(\.text).joined(separator: "\n")
        // Long descriptions wrap to the screen: compared with runs of spaces and line breaks as one space.
        func words(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        for context in [KeyContext.exchanges, .prompt] {
            for binding in Keymap.standard.bindings(in: context) {
                // As the help writes it: with the keys it names filled in (`{sort-next}` is `o`).
                let text = Keymap.standard.help(of: binding, in: context)
                #expect(help.contains(binding.keyLabel))
                #expect(words(help).contains(words(text)), "\(text)")
            }
        }
        for command in Command.allCases where !command.isTextEditing {
            #expect(help.contains(command.name))
            // The whole form the prompt takes, never cut (`sort time|duration|status|siz…` was).
            let form = command.name + (command.argument.map { " " + $0.placeholder } ?? "")
            #expect(words(help).contains(form), "\(form)")
        }
        screen.press(.escape)
        app.turn(on: screen)
        #expect(app.state.top is ExchangesScreen)
    }

    @Test func rReplaysThroughTheReplayerAndTheReplayArrivesByPolling() async throws {
        let store = try Fixture.store(exchanges)
        let replayer = FakeReplayer(store: store)
        let (app, screen) = Fixture.app(store, replayer: replayer)
        screen.press("k", "r")
        app.turn(on: screen)
        screen.press("y")  // a POST without an Idempotency-Key asks first
        app.turn(on: screen)
        #expect(screen.lines[22].contains("replaying POST api.example.com/orders…"))

        await app.settle()
        app.turn(on: screen)
        #expect(replayer.replayedIDs == [Fixture.id(2)])
        #expect(screen.lines[22].contains("replayed → 200 in 12 ms"))

        app.refresh()
        app.turn(on: screen)
        // The fake replay keeps the original's start, so in time order it sits right after it.
        #expect(screen.lines[4].contains("POST    503  api.example.com/orders"))
        #expect(screen.lines[4].contains("↻"))
        #expect(screen.lines[0].contains(" 4 · time↑"))
        #expect(app.state.exchanges.window.selectedRow?.id == Fixture.id(2), "follow was turned off by moving up")
    }

    @Test func aFailedReplayBecomesAnErrorMessage() async throws {
        let (app, screen) = Fixture.app(try Fixture.store(exchanges), replayer: FakeReplayer(failure: "connection refused"))
        screen.press(.enter, "r")
        app.turn(on: screen)
        await app.settle()
        app.turn(on: screen)
        #expect(screen.lines[22].contains("replay failed: connection refused"))
        #expect(screen.lastBuffer?[1, 22].style == .error)
    }

    @Test func newRowsAppearAfterRefresh() throws {
        let store = try Fixture.store(Array(exchanges.prefix(2)))
        let (app, screen) = Fixture.app(store)
        #expect(screen.row(containing: "cdn.example.com") == nil)
        try store.write([exchanges[2]])
        app.refresh()
        app.turn(on: screen)
        #expect(screen.row(containing: "cdn.example.com/logo.png") == 4)
        #expect(app.state.exchanges.window.selectedRow?.id == Fixture.id(3))
    }

    @Test func manyNewRowsKeepFollowingTheNewest() throws {
        let store = try Fixture.store([])
        let (app, screen) = Fixture.app(store)
        try store.write((1...2500).map { Fixture.exchange($0) })
        app.refresh()
        app.turn(on: screen)
        #expect(app.state.exchanges.window.total == 2500)
        #expect(screen.lines[21].contains("api.example.com/items/2500"))
        #expect(screen.lines[22].contains("2,500 / 2,500"))
    }

    @Test func resizeRerendersAtTheNewSize() throws {
        let (app, screen) = Fixture.app(try Fixture.store(exchanges))
        screen.resize(width: 120, height: 30)
        app.turn(on: screen)
        #expect(screen.lastBuffer?.size == Size(width: 120, height: 30))
        #expect(screen.lines[29].hasPrefix("Enter open"))
        #expect(screen.lines[2].contains("█"))
        screen.resize(width: 30, height: 5)
        app.turn(on: screen)
        #expect(screen.lines[0].hasPrefix("terminal too small"))
        screen.resize(width: 80, height: 24)
        app.turn(on: screen)
        #expect(screen.lines[2].contains("api.example.com/users/1"))
    }

    @Test func anEmptyStoreShowsAHintNotAnError() throws {
        let (_, screen) = Fixture.app(try Fixture.store([]))
        #expect(screen.text.contains("No exchanges recorded yet"))
        #expect(screen.text.contains("loupe demo"))
        #expect(!screen.text.contains("store:"))
    }

    @Test func storeErrorsBecomeAStatusMessage() throws {
        let store = FlakyStore(try Fixture.store(exchanges))
        let (app, screen) = Fixture.app(store)
        store.isFailing = true
        app.refresh()
        screen.press(.enter)
        app.turn(on: screen)
        #expect(screen.lines[22].contains("store: could not read new exchanges: database is locked"))
        #expect(screen.text.contains("Could not read the exchange: database is locked"))
        store.isFailing = false
        app.refresh()
        screen.press(.escape)
        app.turn(on: screen)
        #expect(!screen.text.contains("database is locked"))
    }

    @Test func wideCharactersAndBinaryBodiesRenderSafely() throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00])
        let store = try Fixture.store([
            Fixture.exchange(1, url: "https://api.example.com/%E6%97%A5%E6%9C%AC/%F0%9F%8E%89"),
            Fixture.exchange(2, url: "https://api.example.com/plain",
                             responseHeaders: [TraceHeader(name: "X-Name", value: "Zoë 日本 🎉\u{1B}[31m")],
                             responseBody: TraceBody(data: png, size: 10_000, isTruncated: true)),
        ])
        let (app, screen) = Fixture.app(store)
        #expect(screen.lines.allSatisfy { DisplayWidth.of($0) == 80 })
        let durations = [2, 3].map { row in screen.lines[row].range(of: "120 ms").map { DisplayWidth.of(screen.lines[row][..<$0.lowerBound]) } }
        #expect(durations[0] != nil && durations[0] == durations[1])

        screen.press(.enter, .tab)
        app.turn(on: screen)
        #expect(screen.text.contains("  X-Name: Zoë 日本 🎉␛[31m"))
        #expect(screen.text.contains("<binary, 10,000 bytes>"))
        #expect(screen.text.contains("0000  89 50 4e 47 0d 0a 1a 0a  00 00"))
        #expect(screen.text.contains("(truncated: 10 of 10,000 bytes stored)"))
        #expect(screen.lines.allSatisfy { DisplayWidth.of($0) == 80 })
    }

    @Test func runReturnsWhenTheUserQuits() async throws {
        let app = TUIApp(store: try Fixture.store(exchanges), storeName: "mem", replayer: nil, timeZone: .gmt)
        let screen = InMemoryTerminal(width: 80, height: 24)
        screen.press("k", "k", .enter, .escape, "q")
        try await app.run(on: screen)
        #expect(app.hasQuit)
        #expect(app.state.exchanges.window.total == 3)
        #expect(app.state.exchanges.window.selectedRow?.id == Fixture.id(1))
        #expect(screen.pendingKeys.isEmpty)
    }

    @Test func aFilterHidesRowsAndIsNamedInTheTitle() throws {
        let filter = try TraceFilter.parse("~c 5xx")
        let app = TUIApp(store: try Fixture.store(exchanges), storeName: "mem", replayer: nil, filter: filter,
                               timeZone: .gmt)
        let screen = InMemoryTerminal()
        app.refresh()
        app.turn(on: screen)
        #expect(screen.lines[0].contains("│ ~c 5xx"))
        #expect(screen.lines[0].contains("1 shown"))
        #expect(screen.row(containing: "api.example.com/orders") == 2)
        #expect(screen.row(containing: "users/1") == nil)
    }

    @Test func aLongStorePathGivesWayToTheFilterInTheTitle() throws {
        let path = "/home/someone/projects/checkout-service/build/recordings/2026-12-06/integration/traces.sqlite"
        let app = TUIApp(store: try Fixture.store(exchanges), storeName: path, replayer: nil,
                         filter: try TraceFilter.parse("~c 5xx & ~m POST"), timeZone: .gmt)
        let screen = InMemoryTerminal(width: 80, height: 24)
        app.refresh()
        app.turn(on: screen)
        ScreenSnapshot.check([screen.lines[0]], "title-long-store-and-filter")
        #expect(screen.lines[0].contains("│ ~c 5xx & ~m POST"))
        #expect(screen.lines[0].contains("…"))
        #expect(screen.lines[0].contains("traces.sqlite"))
    }

    @Test func drawingSkipsUnchangedFrames() throws {
        let (app, screen) = Fixture.app(try Fixture.store(exchanges))
        let before = screen.drawCount
        app.turn(on: screen)
        app.refresh()
        app.turn(on: screen)
        #expect(screen.drawCount == before)
        screen.press("k")
        app.turn(on: screen)
        #expect(screen.drawCount == before + 1)
    }

    /// `run` applies the terminal's size before the first poll; a resize of a window that has not loaded yet must
    /// not load the top page (the store then opened at `1 / N` under a title saying `follow`).
    @Test func aResizeBeforeTheFirstPollStillOpensAtTheNewest() throws {
        let many = (1...60).map { Fixture.exchange($0) }
        let app = TUIApp(store: try Fixture.store(many), storeName: "mem", replayer: nil, timeZone: .gmt,
                               keymap: .standard, history: InMemoryPromptHistory(), size: Size(width: 80, height: 24))
        let screen = InMemoryTerminal(width: 120, height: 40)
        app.turn(on: screen)   // as `run` does: the size first…
        app.refresh()          // …then the first poll
        app.turn(on: screen)
        #expect(app.state.exchanges.window.total == 60)
        #expect(app.state.exchanges.window.selectedRow?.id == Fixture.id(60))
        #expect(screen.lines[38].contains(" 60 / 60"), "\(screen.lines[38])")
    }
}
