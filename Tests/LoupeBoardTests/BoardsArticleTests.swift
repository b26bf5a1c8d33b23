import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeBoard
import Testing

/// The loop of the `Boards` documentation article, run against a SQLite store: it reads every exchange once, in
/// batches, and the board and metrics agree with what was written.
@Suite struct BoardsArticleTests {
    @Test func theArticlesLoopReadsEachExchangeOnce() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-boards-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteTraceStore(path: folder.appendingPathComponent("demo.sqlite").path)
        var exchanges: [TraceExchange] = []
        for index in 0..<5 {
            let failed = index == 4
            let attempt = BoardFixture.attempt(1, at: Double(index), status: failed ? 503 : 200)
            var exchange = BoardFixture.exchange(0, at: Double(index), duration: 0.1,
                                                 outcome: failed ? .httpError : .success, attempts: [attempt])
            exchange.sequence = nil
            exchanges.append(exchange)
        }
        try store.write(exchanges)

        // As in Boards.md.
        var board = BreakerBoard()
        var metrics = TrafficMetrics()
        while true {
            let batch = try store.activity(after: board.lastSequence, limit: 2)
            guard !batch.isEmpty else { break }
            for exchange in batch {
                board.add(exchange)
                metrics.add(exchange)
            }
        }
        let now = BoardFixture.at(10)
        let key = try #require(board.rows(now: now).first)
        #expect(key.key == "a.test")
        #expect(key.callsInWindow == 5)
        let all = try #require(metrics.rows(window: .fiveMinutes, now: now).first)
        #expect(all.counts.requests == 5)
        #expect(all.counts.errors == 1)
    }
}
