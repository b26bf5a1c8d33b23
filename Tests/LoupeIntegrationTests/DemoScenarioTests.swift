import Foundation
import Loupe
import LoupeDemo
import LoupeQuery
import LoupeTrace
import LoupeBoard
import Testing

/// `loupe demo --headless` in process (the same client, traffic and API), for long enough to see every scenario
/// the TUI's screens show, then read back from the SQLite store with the circuits board's own model.
@Suite struct DemoScenarioTests {
    /// What the store shows of the scenarios so far.
    struct Seen {
        var board = BreakerBoard()
        var exchanges: [TraceExchange] = []

        var inventoryMoves: [String] {
            guard let key = board.rows(now: Date()).first(where: { $0.key.contains("inventory") })?.key else { return [] }
            return board.history(of: key).map { "\($0.from)→\($0.to)" }
        }
        var recovered: Bool {
            let moves = inventoryMoves
            guard let opened = moves.firstIndex(of: "closed→open"),
                  let probed = moves[opened...].firstIndex(of: "open→half-open") else { return false }
            return moves[probed...].contains("half-open→closed")
        }
        /// Every scenario seen, the refused calls of the open breaker too (on a loaded machine the traffic may not
        /// reach the inventory while it is open the first time).
        var complete: Bool {
            let rows = board.rows(now: Date())
            return recovered && rows.contains { $0.budgetDenied > 0 }
                && rows.contains { $0.key.contains("inventory") && $0.notPermitted > 0 }
                && exchanges.contains { $0.operation == "slow" }
        }

        static func read(_ path: String) throws -> Seen {
            let reader = try SQLiteTraceStore(path: path, readOnly: true)
            defer { try? reader.close() }
            var seen = Seen()
            var last = Int64.min
            while true {
                let batch = try reader.activity(after: last, limit: 1_000)
                guard let newest = batch.last?.sequence else { break }
                batch.forEach { seen.board.add($0) }
                seen.exchanges += batch
                last = newest
            }
            return seen
        }
    }

    @Test func theDemoOpensABreakerThatRecoversHonoursRetryAfterAndRunsIntoTheBudget() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("demo.sqlite").path
            var seen = Seen()
            try await withDemoServer { baseURL in
                let store = try SQLiteTraceStore(path: path)
                let inspector = NetworkTraceInspector(store: store)
                let traffic = DemoTraffic(client: DemoClient.make(baseURL: baseURL, observer: inspector))
                // The outage is 1.5–4.5 s after the server starts (then every 20 s), the probe 3 s after opening, a
                // burst 3 s into each run: 9 s shows them all on an idle machine. A loaded one (the whole suite runs
                // at once) may miss the first outage, so the traffic goes on, in steps, until the store shows every
                // scenario or a minute has passed.
                let deadline = ContinuousClock.now + .seconds(60)
                var step = Duration.seconds(9)
                while ContinuousClock.now < deadline {
                    await traffic.run(until: .now + step)
                    await inspector.flush()
                    seen = try Seen.read(path)
                    if seen.complete { break }
                    step = .seconds(5)
                }
                await inspector.shutdown()
            }
            seen = try Seen.read(path)

            // The inventory breaker opened, probed half-open and closed again.
            #expect(seen.recovered, "\(seen.inventoryMoves)")
            let inventory = try #require(seen.board.rows(now: Date()).first { $0.key.contains("inventory") })
            #expect(inventory.notPermitted > 0)

            // Retries waited as the server's Retry-After asked.
            let retryAfter = seen.exchanges.flatMap(\.events).filter {
                $0.kind == .retryScheduled && $0.attributes["source"] == "retry-after"
            }
            #expect(!retryAfter.isEmpty)

            // The burst's retries ran into the retry budget.
            let denials = seen.board.rows(now: Date()).reduce(0) { $0 + $1.budgetDenied }
            #expect(denials > 0)
            #expect(seen.exchanges.contains { $0.operation == "burst" && $0.events.contains {
                $0.kind == .retryGivenUp && $0.attributes["reason"] == "retry budget exhausted" } })

            // The slow endpoint took its time.
            #expect(seen.exchanges.contains { $0.operation == "slow" && ($0.duration ?? 0) >= 0.5 })
        }
    }
}
