import Foundation
import Loupe
import LoupeFilter
import LoupeQuery
import LoupeTrace
@testable import LoupeTUI
import Testing

/// `loupe tui --listen` (issue 28): the title bar shows each linked app and its state, and `s` shows the exchanges
/// list's SOURCE column. Whole screens, compared with the snapshots in `Screens/`.
@Suite struct LinkSourcesTests {
    static func exchanges() -> [TraceExchange] {
        (1...4).map { number in
            var exchange = Fixture.exchange(number, url: "https://api.example.com/items/\(number)")
            // Two apps, and one exchange recorded in-process (no source).
            if number < 4 {
                exchange.source = TraceSource(app: number % 2 == 0 ? "billing" : "checkout", host: "box", pid: 40 + number % 2)
            }
            return exchange
        }
    }

    @Test func theTitleBarShowsEachSourceAndItsState() throws {
        // 124 columns: the whole title, with the screen's name `exchanges`, then both apps' states.
        let (app, screen) = Fixture.app(try Fixture.store(Self.exchanges()), width: 124, height: 10)
        let gone = Fixture.epoch.addingTimeInterval(3_723)
        app.sourceStatus = {
            [SourceStatus(app: "checkout", state: .linked),
             SourceStatus(app: "billing", state: .gone(since: gone), dropped: 5)]
        }
        app.refresh()
        app.turn(on: screen)
        #expect(screen.lines[0].contains("src: checkout linked; billing gone since "), "\(screen.lines[0])")
        #expect(screen.lines[0].contains(", dropped 5"), "\(screen.lines[0])")
        ScreenSnapshot.check(screen, "link-sources-title")
    }

    @Test func sTogglesTheSourceColumn() throws {
        let (app, screen) = Fixture.app(try Fixture.store(Self.exchanges()), width: 100, height: 10)
        #expect(!screen.lines[1].contains("SOURCE"), "hidden by default")
        screen.press("s")
        app.turn(on: screen)
        #expect(screen.lines[1].contains("SOURCE"), "\(screen.lines[1])")
        #expect(screen.lines[2].contains("checkout"))
        #expect(screen.lines[3].contains("billing"))
        #expect(screen.lines[5].contains(" · "), "recorded in-process: no source")
        ScreenSnapshot.check(screen, "link-sources-column")
        screen.press("s")
        app.turn(on: screen)
        #expect(!screen.lines[1].contains("SOURCE"), "s again hides it")
    }

    @Test func sourceFilterKeepsOneApp() throws {
        let store = try Fixture.store(Self.exchanges())
        let filter = try TraceFilter.parse("~src billing")
        #expect(try store.summaries(matching: filter, limit: 10).map(\.sourceApp) == ["billing"])
    }
}

/// `loupe tui --listen` refreshes when the listener stores a batch (DECISIONS 145).
@Suite struct StoreWakeupTests {
    @Test func aSignalIsSeenOnceAndManySignalsAreOneWakeup() throws {
        let wakeup = try #require(StoreWakeup())
        #expect(!wakeup.drain(), "nothing signalled yet")
        wakeup.signal()
        #expect(wakeup.drain())
        #expect(!wakeup.drain(), "drained")
        for _ in 0..<100_000 { wakeup.signal() }  // more than the pipe holds: never blocks
        #expect(wakeup.drain())
        #expect(!wakeup.drain())
    }

    /// The app reads the store when signalled, without waiting for its poll: rows stored after the first frame
    /// are on screen after one turn of the loop, with a poll interval that would otherwise hide them for an hour.
    @Test func theLoopReadsTheStoreWhenSignalled() async throws {
        let store = try Fixture.store([Fixture.exchange(1)])
        let app = TUIApp(store: store, storeName: "/tmp/traces.sqlite", replayer: nil, pollInterval: .seconds(3600),
                               timeZone: .gmt, keymap: .standard, history: InMemoryPromptHistory(),
                               size: Size(width: 80, height: 10))
        let wakeup = try #require(StoreWakeup())
        app.wakeup = wakeup
        let screen = ScriptedQuitTerminal(width: 80, height: 10)
        screen.onWait = { turn in
            if turn == 1 {
                try? store.write([Fixture.exchange(2), Fixture.exchange(3)])
                wakeup.signal()
            }
        }
        try await app.run(on: screen)
        #expect(screen.watched == wakeup.readDescriptor, "the screen watches the wakeup's pipe")
        #expect(screen.framesSeen.contains { $0.contains { $0.contains(" 3 / 3") } }, "the new rows were drawn")
    }
}

/// A screen that answers no key for three waits, then `q`; it records what it drew and what it was asked to watch.
final class ScriptedQuitTerminal: Terminal {
    let inner: InMemoryTerminal
    var onWait: (Int) -> Void = { _ in }
    private(set) var watched: Int32?
    private(set) var framesSeen: [[String]] = []
    private var waits = 0

    init(width: Int, height: Int) {
        inner = InMemoryTerminal(width: width, height: height)
    }

    var size: Size { inner.size }
    func draw(_ buffer: Buffer) {
        inner.draw(buffer)
        framesSeen.append(inner.lines)
    }
    func nextKey(timeout: Duration) -> Key? {
        guard timeout > .zero else { return nil }
        waits += 1
        onWait(waits)
        return waits > 3 ? "q" : nil
    }
    func watch(_ descriptor: Int32) { watched = descriptor }
}
