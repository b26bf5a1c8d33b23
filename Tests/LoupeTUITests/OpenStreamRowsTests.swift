import Foundation
import Loupe
import LoupeTrace
import LoupeTUI
import Synchronization
import Testing

/// Streams still open in this process's recorder show as live rows under the exchanges list: how long they have run and
/// their messages each way, redrawn as they move; gone once the stream ends (it is then a stored row).
@Suite struct OpenStreamRowsTests {
    static let now = Fixture.epoch.addingTimeInterval(30)

    static func stream(_ number: Int, kind: ExchangeStreamKind, age: TimeInterval, sent: Int, received: Int) -> OpenStream {
        OpenStream(id: Fixture.id(100 + number), operation: kind == .webSocket ? "ticker" : "completion", method: "GET",
                   url: kind == .webSocket ? "http://127.0.0.1:8080/ticker" : "http://127.0.0.1:8080/completions",
                   kind: kind, startedAt: now.addingTimeInterval(-age), sent: sent, received: received)
    }

    @Test func openStreamsAreLiveRowsUnderTheExchangesListAndGoWhenTheyEnd() throws {
        let open = Mutex([Self.stream(1, kind: .eventStream, age: 1.25, sent: 0, received: 7),
                          Self.stream(2, kind: .webSocket, age: 4, sent: 2, received: 1_204)])
        let store = try Fixture.store([Fixture.exchange(1, url: "https://api.example.com/users/1"), Fixture.exchange(2)])
        let app = TUIApp(store: store, storeName: "/tmp/traces.sqlite", replayer: nil, timeZone: .gmt,
                               keymap: .standard, history: InMemoryPromptHistory(), size: Size(width: 80, height: 24),
                               now: { Fixture.clock.now }, wallClock: { Self.now }, openStreams: { open.withLock { $0 } })
        let screen = InMemoryTerminal(width: 80, height: 24)
        app.refresh()
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "exchanges-open-streams")

        // Counts move on the next poll, and a stream that ended leaves the live rows.
        open.withLock { $0 = [Self.stream(2, kind: .webSocket, age: 4, sent: 3, received: 1_300)] }
        app.refresh()
        app.turn(on: screen)
        #expect(screen.lines.contains { $0.contains("⇅ open 4.00 s  ↑ 3 ↓ 1,300  WebSocket  ticker  GET http://127.0.0.1:8080/") },
                "\(screen.lines.joined(separator: "\n"))")
        #expect(!screen.lines.contains { $0.contains("completion") })
        open.withLock { $0 = [] }
        app.refresh()
        app.turn(on: screen)
        #expect(!screen.lines.contains { $0.contains("⇅ open") })
    }

    @Test func recordedTextInALiveRowIsMadeSafe() {
        var stream = Self.stream(1, kind: .eventStream, age: 0, sent: 0, received: 0)
        stream.operation = "evil\u{1B}[2Jop"
        #expect(!ExchangesScreen.text(of: stream, now: Self.now).contains("\u{1B}"))
    }
}
