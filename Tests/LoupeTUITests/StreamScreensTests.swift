import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
@testable import LoupeTUI
import Testing

/// Streams on the timeline (`2`: a bar with a tick per message) and the metrics (`4`: time to first message,
/// messages per second, the gap between messages), from an in-memory store and from a real SQLite file.
@Suite struct StreamScreensTests {
    /// A model-like server-sent events stream: 250 ms to the first token, then one every `gap` seconds, and the
    /// client's request sent at the start; one exchange per call.
    static func completion(_ number: Int, tokens: Int, gap: Double = 0.1, firstAfter: Double = 0.25) -> TraceExchange {
        let duration = firstAfter + Double(tokens - 1) * gap + 0.05
        var exchange = Fixture.exchange(number, method: "POST", url: "https://api.example.com/completions",
                                        duration: duration,
                                        responseHeaders: [TraceHeader(name: "Content-Type", value: "text/event-stream")])
        exchange.operation = "completions"
        exchange.attempts[0].endedAt = exchange.endedAt
        let messages = (0..<tokens).map { index in
            TraceMessage(index: index, direction: .received,
                         at: exchange.startedAt.addingTimeInterval(firstAfter + Double(index) * gap),
                         type: "message", size: 12, payload: Data(#"{"t":"tok"}"#.utf8), eventID: String(index))
        }
        exchange.stream = TraceStream(kind: .eventStream, messages: messages, receivedCount: tokens,
                                      byteCount: 12 * tokens)
        return exchange
    }

    /// A WebSocket with a message sent and answers received in the same moment, then received ones.
    static func socket(_ number: Int) -> TraceExchange {
        var exchange = Fixture.exchange(number, url: "wss://api.example.com/ticks", status: 101, duration: 2.0,
                                        responseHeaders: [])
        exchange.operation = "ticks"
        exchange.attempts[0].endedAt = exchange.endedAt
        let times: [(Double, MessageDirection)] = [(0.05, .sent), (0.06, .received), (0.9, .received), (1.6, .sent)]
        let messages = times.enumerated().map { index, pair in
            TraceMessage(index: index, direction: pair.1, at: exchange.startedAt.addingTimeInterval(pair.0),
                         type: "text", size: 2, payload: Data("{}".utf8))
        }
        exchange.stream = TraceStream(kind: .webSocket, messages: messages, sentCount: 2, receivedCount: 2, byteCount: 8)
        return exchange
    }

    static func exchanges() -> [TraceExchange] {
        [Fixture.exchange(1, duration: 0.5), completion(2, tokens: 20), socket(5)]
    }

    @Test func theTimelineDrawsAStreamAsABarWithATickPerMessage() throws {
        let (app, screen) = Fixture.app(try Fixture.store(Self.exchanges()), wallClock: { Fixture.epoch.addingTimeInterval(30) })
        screen.press("2")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "timeline-streams")
        let completions = try #require(screen.row(containing: "/completions"))
        let bar = screen.lines[completions].split(separator: "│", maxSplits: 1).last.map(String.init) ?? ""
        // 20 tokens over 2.2 s on a 10 s axis of 53 cells: several tokens share a cell and make one tick.
        #expect(bar.contains("↓"))
        #expect(bar.filter { $0 == "↓" }.count < 20)
        let ticks = try #require(screen.row(containing: "/ticks"))
        #expect(screen.lines[ticks].contains("↕"), "a sent and a received message in one cell")
        #expect(screen.lines[ticks].contains("↑"))
        #expect(screen.text.contains("↑↓ message"))
    }

    @Test func aTimelineWithoutStreamsHasNoMessageLegend() throws {
        let (app, screen) = Fixture.app(try Fixture.store([Fixture.exchange(1)]))
        screen.press("2")
        app.turn(on: screen)
        #expect(!screen.text.contains("↑↓ message"))
    }

    @Test func aHundredThousandMessageStreamDrawsOneTickPerCellAtMost() throws {
        var stream = Self.completion(2, tokens: 100_000, gap: 0.0001)
        stream.stream?.messages[50_000].direction = .sent
        let track = TimelineTrack(stream)
        #expect(track.received.count == 99_999 && track.sent.count == 1)
        let start = stream.startedAt
        #expect(track.tick(from: start, to: start.addingTimeInterval(0.2)) == nil, "before the first token")
        #expect(track.tick(from: start.addingTimeInterval(0.25), to: start.addingTimeInterval(1)) == "↓")
        #expect(track.tick(from: start.addingTimeInterval(5.24), to: start.addingTimeInterval(5.26)) == "↕")
        #expect(track.tick(from: start.addingTimeInterval(20), to: start.addingTimeInterval(30)) == nil, "after the last")
    }

    @Test func theTimelineReadsMessageTimesFromASQLiteStore() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-streams-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteTraceStore(path: folder.appendingPathComponent("traces.sqlite").path, bounds: nil)
        try store.write(Self.exchanges())
        let read = try store.activity(sequences: [1, 2, 3])
        let stream = try #require(read.first { $0.operation == "completions" }?.stream)
        #expect(stream.messages.count == 20 && stream.receivedCount == 20)
        #expect(stream.messages.allSatisfy { $0.payload.isEmpty }, "times only: the payloads stay in the store")
        let (app, screen) = Fixture.app(store, wallClock: { Fixture.epoch.addingTimeInterval(30) })
        screen.press("2")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "timeline-streams")
    }
}
