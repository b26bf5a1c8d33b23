import Foundation
import Loupe
import LoupeBoard
import LoupeQuery
import LoupeTrace
@testable import LoupeTUI
import Testing

/// The metrics (`4`) of streams: per operation, time to first message, messages per second and the gap between
/// messages (p50, p95), worked out from the stream's received messages.
@Suite struct StreamMetricsTests {
    /// Three completions (first token after 250, 300 and 400 ms, a token every 100 ms), a WebSocket, a plain call.
    static func exchanges() -> [TraceExchange] {
        [
            Fixture.exchange(1, duration: 0.5),
            StreamScreensTests.completion(2, tokens: 20),
            StreamScreensTests.completion(3, tokens: 10, firstAfter: 0.3),
            StreamScreensTests.completion(4, tokens: 5, gap: 0.2, firstAfter: 0.4),
            StreamScreensTests.socket(5),
        ]
    }

    @Test func theMetricsScreenShowsEachStreamingOperationsFigures() throws {
        let (app, screen) = Fixture.app(try Fixture.store(Self.exchanges()), wallClock: { Fixture.epoch.addingTimeInterval(30) })
        screen.press("4")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "metrics-streams")
        let completions = try #require(screen.lines.lastIndex { $0.contains("op completions") })
        let line = screen.lines[completions]
        // 250, 300 and 400 ms: p50 300 ms (HdrHistogram's highest equivalent value, 301 ms), p95 400 ms.
        #expect(line.contains("301 ms") && line.contains("400 ms"), "time to first message p50 and p95")
        #expect(line.contains("100 ms") && line.contains("200 ms"), "the gaps' p50 and p95")
        #expect(screen.lines.filter { $0.contains("op op1") }.count == 1, "a plain operation has no streams row")
        #expect(screen.lines.filter { $0.contains("op ticks") }.count == 2, "in the table and under streams")
    }

    @Test func aMetricsScreenWithoutStreamsIsAsBefore() throws {
        let (app, screen) = Fixture.app(try Fixture.store([Fixture.exchange(1)]))
        screen.press("4")
        app.turn(on: screen)
        #expect(!screen.text.contains("FIRST P50"))
    }

    @Test func theFiguresComeFromTheReceivedMessages() throws {
        var metrics = TrafficMetrics()
        for exchange in Self.exchanges() { metrics.add(exchange) }
        let rows = metrics.rows(window: .all, now: Fixture.epoch.addingTimeInterval(30))
        let completions = try #require(rows.first { $0.group == .operation("completions") }?.streams)
        #expect(completions.streams == 3)
        #expect(completions.firstMessage.count == 3)
        // 19 + 9 + 4 gaps: 28 of 100 ms, 4 of 200 ms.
        #expect(completions.gaps.count == 32)
        let gaps = completions.gaps.percentiles([50, 95])
        #expect(abs((gaps[0] ?? 0) - 0.1) < 0.002 && abs((gaps[1] ?? 0) - 0.2) < 0.003)
        // 32 messages after the first ones over 1.9 + 0.9 + 0.8 s.
        #expect(abs((completions.messagesPerSecond ?? 0) - 32 / 3.6) < 0.01)
        #expect(rows.first { $0.group == .operation("op1") }?.streams == nil)
        let socket = try #require(rows.first { $0.group == .operation("ticks") }?.streams)
        #expect(socket.firstMessage.percentile(50).map { abs($0 - 0.06) < 0.001 } == true, "the first received, not sent")
        #expect(socket.gaps.count == 1, "received after received only")
    }

    @Test func messagesNotKeptPastTheCapAreNoGap() throws {
        var exchange = StreamScreensTests.completion(2, tokens: 6)
        // Keep 0, 1, 2 and 4, 5 of 6: the pair (2, 4) spans one message not kept.
        exchange.stream?.messages.remove(at: 3)
        exchange.stream?.omittedCount = 1
        var metrics = TrafficMetrics()
        metrics.add(exchange)
        let figures = try #require(metrics.rows(window: .all, now: Fixture.epoch).first { $0.group == .all }?.streams)
        #expect(figures.gaps.count == 3)
        #expect(abs((figures.messagesPerSecond ?? 0) - 5 / 0.5) < 0.01, "the count is every message received")
    }
}
