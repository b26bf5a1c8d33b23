import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
@testable import LoupeTUI
import Testing

/// A stored stream is listed by what it did (its messages, bytes and how it ended), not by its last head: a
/// finished event stream's `204 … 0 B`, a WebSocket's `101 … 0 B`, a cut stream's plain `200` (issue 43, item 10).
@Suite struct StreamRowsTests {
    static func eventStream(_ number: Int, status: Int, events: Int, close: TraceStream.Close) -> TraceExchange {
        var exchange = Fixture.exchange(number, url: "https://api.example.com/events/\(number)", status: status,
                                        duration: 4.5, responseHeaders: [])
        exchange.stream = TraceStream(kind: .eventStream, receivedCount: events, byteCount: 40 * events,
                                      closeReason: close.reason, closedBy: close.by)
        return exchange
    }

    /// The three rows of the issue, and a plain exchange between them, as a store holds them.
    static func exchanges() -> [TraceExchange] {
        var socket = Fixture.exchange(2, url: "wss://api.example.com/ticks", status: 101, duration: 9, responseHeaders: [])
        socket.stream = TraceStream(kind: .webSocket, sentCount: 3, receivedCount: 1_204, byteCount: 81_920,
                                    closeCode: 1000, closedBy: "client")
        return [
            eventStream(1, status: 204, events: 21, close: .init(by: "server")),
            socket,
            Fixture.exchange(3, url: "https://api.example.com/users/1"),
            eventStream(4, status: 200, events: 7, close: .init(by: "server", reason: "connection reset by peer")),
        ]
    }

    @Test(arguments: [false, true])
    func streamRowsSayWhatTheStreamDid(sqlite: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-rows-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store: any TraceStore
        if sqlite {
            // The summary query reads the stream from the row (no second query, no messages).
            let file = try SQLiteTraceStore(path: folder.appendingPathComponent("traces.sqlite").path, bounds: nil)
            try file.write(Self.exchanges())
            store = file
        } else {
            store = try Fixture.store(Self.exchanges())
        }
        let (app, screen) = Fixture.app(store, width: 120, height: 12)
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "exchanges-stream-rows")
        let finished = try #require(screen.row(containing: "/events/1"))
        #expect(screen.lines[finished].contains(" SSE ") && screen.lines[finished].contains("↑ 0 ↓ 21 ended"))
        #expect(!screen.lines[finished].contains("204") && screen.lines[finished].contains("840 B"))
        let socket = try #require(screen.row(containing: "/ticks"))
        #expect(screen.lines[socket].contains(" 1000 ") && screen.lines[socket].contains("↑ 3 ↓ 1,204 closed"))
        #expect(!screen.lines[socket].contains("101"))
        let cut = try #require(screen.row(containing: "/events/4"))
        #expect(screen.lines[cut].contains(" SSE ") && screen.lines[cut].contains("↑ 0 ↓ 7 cut"))
        #expect(!screen.lines[cut].contains(" 200 "))
    }

    @Test func aStreamRefusedAtItsHeadKeepsItsStatus() {
        var refused = Self.eventStream(5, status: 401, events: 0, close: .init(by: nil))
        refused.outcome = .success
        #expect(StatusStyle.cell(for: refused.summary).text == "401")
        var socket = Fixture.exchange(6, status: 101)
        socket.stream = TraceStream(kind: .webSocket, closeCode: 1006, closedBy: "server")
        #expect(StatusStyle.cell(for: socket.summary).text == "1006")
        #expect(socket.stream?.ending == "cut")
    }
}

extension TraceStream {
    /// How a test stream closed.
    struct Close {
        var by: String?
        var reason: String?
    }
}
