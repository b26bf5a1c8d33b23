import Foundation
import GRDB
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeFilter
@testable import LoupeFormats
import Testing
@testable import LoupeTestSupport

/// Stores hold whatever their writer put there: older versions stored any time they were given, and a hand-edited
/// file can hold anything in any column. Reading never stops the process and gives finite, bounded numbers.
@Suite("Numbers already in a store")
struct StoredNumbersTests {
    /// A store with three exchanges whose columns are then overwritten with `assignments` (SQL, one per row).
    static func poisonedStore(_ folder: TemporaryFolder, _ assignments: [String]) throws -> SQLiteTraceStore {
        let path = folder.file("traces.sqlite")
        let store = try SQLiteTraceStore(path: path, bounds: nil)
        let exchanges = (0..<assignments.count).map { index in
            var exchange = TraceMatchingFixtures.exchange
            exchange.id = UUID()
            exchange.events = [TraceEvent(kind: "retry", at: exchange.startedAt, message: "m")]
            exchange.attempts[0].retryDelay = 0.5
            _ = index
            return exchange
        }
        try store.write(exchanges)
        try store.close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            for (offset, assignment) in assignments.enumerated() {
                try db.execute(sql: assignment.replacingOccurrences(of: "$ROW", with: String(offset + 1)))
            }
        }
        try queue.close()
        return try SQLiteTraceStore(path: path, bounds: nil)
    }

    static let poison = [
        // 9e999 is how SQL writes infinity; SQLite keeps it in a REAL column.
        "UPDATE exchange SET duration = 9e999, started_at = -1e300, ended_at = 9e999, status = 1e300 WHERE sequence = $ROW",
        "UPDATE exchange SET duration = -9e999, started_at = 1e300, ended_at = -5, attempt_count = 1e300, "
            + "request_body_size = 'many', response_body_size = -1e300 WHERE sequence = $ROW",
        "UPDATE exchange SET duration = 1e300, started_at = 'yesterday', status = 'teapot', outcome = 42, "
            + "response_body_size = 9223372036854775807 WHERE sequence = $ROW",
        "UPDATE attempt SET started_at = 9e999, ended_at = 'soon', retry_delay = -9e999, status = 1e300, "
            + "number = 1e300 WHERE exchange_sequence = $ROW",
        "UPDATE event SET at = -9e999 WHERE exchange_sequence = $ROW",
        "UPDATE attempt SET retry_delay = 1e300, first_byte_at = 1e300 WHERE exchange_sequence = $ROW",
    ]

    static func expectSane(_ date: Date?) {
        guard let date else { return }
        #expect(TraceTime.range.contains(date.timeIntervalSince1970))
    }

    @Test("lists, filters, statistics, full exchanges and HAR export read any stored number")
    func anyStoredNumberReads() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try Self.poisonedStore(folder, Self.poison)
        let summaries = try store.recent(limit: 10)
        #expect(summaries.count == Self.poison.count)
        for summary in summaries {
            Self.expectSane(summary.startedAt)
            #expect(summary.duration.map { (0...TraceTime.maxDuration).contains($0) } ?? true)
            #expect(summary.attemptCount >= 0)
        }
        for text in ["~dur >1s", "~dur <1ms", "~c 5xx | ~att >1", "!~e & ~b secret"] {
            _ = try store.summaries(matching: TraceFilter.parse(text), limit: 10)
            _ = try store.exchanges(matching: TraceFilter.parse(text), limit: 10)
        }
        let stats = try storeStats(store, matching: nil)
        #expect(stats.first?.count == Self.poison.count)
        var exchanges: [TraceExchange] = []
        for summary in summaries {
            let exchange = try #require(try store.exchange(id: summary.id))
            Self.expectSane(exchange.startedAt)
            Self.expectSane(exchange.endedAt)
            #expect(exchange.duration.map { (0...TraceTime.maxDuration).contains($0) } ?? true)
            for attempt in exchange.attempts {
                Self.expectSane(attempt.startedAt)
                Self.expectSane(attempt.endedAt)
                Self.expectSane(attempt.firstByteAt)
                #expect(attempt.retryDelay.map { (0...TraceTime.maxDuration).contains($0) } ?? true)
            }
            for event in exchange.events { Self.expectSane(event.at) }
            exchanges.append(exchange)
        }
        // Export writes JSON, which has no infinity: it works because what was read is finite.
        let exported = try HARExporter().data(for: exchanges)
        #expect(try HARImporter().exchanges(from: exported).count == exchanges.count)
    }

    @Test("durations in the model stay finite and in range whatever the times")
    func modelDurations() {
        var exchange = TraceMatchingFixtures.exchange
        for (start, end) in [(0.0, Double.infinity), (-1e300, 1e300), (1e9, 0), (0, .nan), (-Double.infinity, 0)] {
            exchange.startedAt = Date(timeIntervalSince1970: start)
            exchange.endedAt = Date(timeIntervalSince1970: end)
            #expect(exchange.duration.map { (0...TraceTime.maxDuration).contains($0) } ?? true, "\(start) → \(end)")
        }
        #expect(TraceTime.clampedDuration(.nan) == nil)
        #expect(TraceTime.clampedDuration(-3) == 0)
        #expect(TraceTime.clampedDuration(1e300) == TraceTime.maxDuration)
        #expect(TraceTime.clampedInstant(.infinity) == nil)
        #expect(TraceTime.clampedInstant(1e300) == Date(timeIntervalSince1970: TraceTime.range.upperBound))
        #expect(TraceTime.instant(-1e300) == nil)
        #expect(HARDate.string(from: Date(timeIntervalSince1970: .nan)) == "1970-01-01T00:00:00.000Z")
        #expect(HARDate.string(from: Date(timeIntervalSince1970: 1e300)) == "9999-12-31T23:59:59.999Z")
    }
}
