import Foundation
import Loupe
import LoupeDemo
import LoupeTrace
import Testing

/// `loupe demo --headless` in process (the same client, traffic and API), for long enough to see every scenario
/// the inspector's screens show, then read back from the SQLite store with the circuits board's own model.
@Suite struct DemoScenarioTests {
    @Test func theDemoOpensABreakerThatRecoversHonoursRetryAfterAndRunsIntoTheBudget() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("demo.sqlite").path
            try await withDemoServer { baseURL in
                let store = try SQLiteTraceStore(path: path)
                let inspector = NetworkTraceInspector(store: store)
                let traffic = DemoTraffic(client: DemoClient.make(baseURL: baseURL, observer: inspector))
                // The outage is 1.5–4.5 s, the probe 3 s after opening, the burst at 3 s: 9 s shows them all.
                await traffic.run(until: .now + .seconds(9))
                await inspector.shutdown()
            }
            let reader = try SQLiteTraceStore(path: path, readOnly: true)
            var board = BreakerBoard()
            var exchanges: [TraceExchange] = []
            var last = Int64.min
            while true {
                let batch = try reader.activity(after: last, limit: 1_000)
                guard let newest = batch.last?.sequence else { break }
                batch.forEach { board.add($0) }
                exchanges += batch
                last = newest
            }

            // The inventory breaker opened, probed half-open and closed again.
            let inventory = try #require(board.rows(now: Date()).first { $0.key.contains("inventory") })
            let moves = board.history(of: inventory.key).map { "\($0.from)→\($0.to)" }
            let opened = try #require(moves.firstIndex(of: "closed→open"), "\(moves)")
            let probed = try #require(moves[opened...].firstIndex(of: "open→half-open"), "\(moves)")
            #expect(moves[probed...].contains("half-open→closed"), "\(moves)")
            #expect(inventory.notPermitted > 0)

            // Retries waited as the server's Retry-After asked.
            let retryAfter = exchanges.flatMap(\.events).filter {
                $0.kind == .retryScheduled && $0.attributes["source"] == "retry-after"
            }
            #expect(!retryAfter.isEmpty)

            // The burst's retries ran into the retry budget.
            let denials = board.rows(now: Date()).reduce(0) { $0 + $1.budgetDenied }
            #expect(denials > 0)
            #expect(exchanges.contains { $0.operation == "burst" && $0.events.contains {
                $0.kind == .retryGivenUp && $0.attributes["reason"] == "retry budget exhausted" } })

            // The slow endpoint took its time.
            #expect(exchanges.contains { $0.operation == "slow" && ($0.duration ?? 0) >= 0.5 })
        }
    }
}
