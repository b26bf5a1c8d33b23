import Foundation
import GRDB
@testable import LoupeQuery
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

@Suite("Pruning a store with absurd recorded sizes")
struct PruneHugeSizesTests {
    /// An older or hand-edited store may hold `1e300` in `stored_bytes`; `Int(_:)` of its sum used to trap.
    @Test(arguments: ["1e300", "9e999", "-1e300", "'text'"])
    func pruneSurvivesAbsurdStoredBytes(value: String) throws {
        let folder = try TemporaryFolder()
        let path = folder.file("traces.sqlite")
        let store = try SQLiteTraceStore(path: path, bounds: nil)
        try store.write(PruneTests.exchanges(5))
        let poke = try DatabaseQueue(path: path)
        try poke.write { db in
            try db.execute(sql: "UPDATE exchange SET stored_bytes = \(value) WHERE sequence = (SELECT MIN(sequence) FROM exchange)")
        }
        try poke.close()
        let bounds = TraceStoreBounds(maxCount: nil, maxBytes: 1, maxAge: nil)
        let dryRun = try store.prune(bounds, now: Date(), dryRun: true)
        #expect(dryRun.removedBytes >= 0 && dryRun.remainingBytes >= 0)
        let result = try store.prune(bounds, now: Date(), dryRun: false)
        #expect(result.removedBytes >= 0 && result.remainingBytes >= 0)
        // A size that saturates counts as the largest there is: its exchange is the first to go.
        if value == "1e300" || value == "9e999" { #expect(result.removedCount >= 1) }
    }
}
