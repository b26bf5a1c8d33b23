import Foundation
import GRDB
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeFilter
import Testing
@testable import LoupeTestSupport

/// One million small exchanges, then timed queries. Skipped unless `LOUPE_BIG=1` (it takes about a minute in
/// debug); `LOUPE_BIG_STORE=/path.sqlite` keeps the store there for trying the CLI on it.
@Suite("A store of 1,000,000 exchanges", .enabled(if: ProcessInfo.processInfo.environment["LOUPE_BIG"] == "1"))
struct MillionExchangeTests {
    static let count = 1_000_000
    static let hosts = (0..<20).map { "svc\($0).internal.test" } + ["example.com", "api.example.com"]

    /// Mostly GETs that succeeded; 1 % 503s, some 5xx, 5 % retried, 0.1 % replays, 1 in 5,000 PATCH.
    static func exchange(_ index: Int, start: Date, random: inout SeededGenerator) -> TraceExchange {
        let roll = Int(random.next() % 10_000)
        let method = roll < 2 ? "PATCH" : roll < 2_000 ? "POST" : roll < 2_500 ? "PUT" : "GET"
        let status = roll % 100 == 7 ? 503 : roll % 50 == 3 ? 500 : roll % 20 == 1 ? 404 : 200
        let retried = roll % 20 == 5
        let started = start.addingTimeInterval(Double(index) / 100)
        let attempts = (1...(retried ? 2 : 1)).map { number in
            TraceAttempt(number: number, startedAt: started, status: status,
                         circuitState: roll % 1_000 == 11 ? "open" : "closed")
        }
        return TraceExchange(
            id: UUID(), operation: "op\(roll % 40)", method: method,
            url: "https://\(hosts[Int(random.next() % UInt64(hosts.count))])/v1/items/\(index)",
            startedAt: started, endedAt: started.addingTimeInterval(Double(random.next() % 2_000) / 1_000),
            outcome: status >= 500 ? .httpError : .success, status: status,
            requestHeaders: [TraceHeader(name: "Accept", value: "application/json")],
            responseBody: roll % 10 == 0 ? TraceBody(data: Data(#"{"id":\#(index)}"#.utf8), size: 12, isTruncated: false) : nil,
            attempts: attempts, replayOf: roll % 1_000 == 999 ? UUID() : nil)
    }

    @Test("indexed filters with --limit 50 answer in under a second")
    func million() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = ProcessInfo.processInfo.environment["LOUPE_BIG_STORE"] ?? folder.file("traces.sqlite")
        let store = try SQLiteTraceStore(path: path, bounds: nil)
        var random = SeededGenerator(seed: 2024)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let existing = try store.count()
        let writeStart = ContinuousClock.now
        for batch in stride(from: existing, to: Self.count, by: 10_000) {
            try store.write((batch..<min(batch + 10_000, Self.count)).map { Self.exchange($0, start: start, random: &random) })
        }
        let written = Self.count - existing
        let writeTime = ContinuousClock.now - writeStart
        print("wrote \(written) exchanges in \(writeTime) (\(Int(Double(written) / max(0.001, writeTime.seconds)))/s)")
        #expect(try store.count() == Self.count)

        func time<T>(_ label: String, _ body: () throws -> T) rethrows -> (T, Duration) {
            let began = ContinuousClock.now
            let value = try body()
            let took = ContinuousClock.now - began
            print("\(label): \(took)")
            return (value, took)
        }
        for text in ["~c 503", "~d example.com & ~m POST", "~m PATCH", "~c 5xx", "~e", "~replay", "~att >1", "~cb open",
                     "~op op7", "~dur >1950ms", "~c 503 & ~d api.example.com", "!~m GET & ~c 404"] {
            let filter = try TraceFilter.parse(text)
            let (found, took) = try time("summaries \(text) limit 50") { try store.summaries(matching: filter, limit: 50) }
            #expect(found.count == 50, "\(text)")
            #expect(found.allSatisfy { $0.sequence > 0 })
            #expect(took < .seconds(1), "\(text)")
        }
        // Not indexed (reported, not asserted): regex terms read rows until 50 match.
        for text in ["~u items/99", "~b \"id\":12345", "~h json"] {
            _ = try time("summaries \(text) limit 50") { try store.summaries(matching: TraceFilter.parse(text), limit: 50) }
        }
        _ = try time("stats ~c 5xx") { try storeStats(store, matching: TraceFilter.parse("~c 5xx")) }
        _ = try time("stats (all)") { try storeStats(store, matching: nil) }
        _ = try time("prune dry run to 500k") {
            try store.prune(TraceStoreBounds(maxCount: 500_000, maxBytes: 64 << 20, maxAge: nil), now: Date(), dryRun: true)
        }
    }
}

extension MillionExchangeTests {
    @Test("what the v2 indexes cost when writing (200,000 exchanges, with and without them)")
    func ingestCost() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var rates: [String: Double] = [:]
        for (name, dropV2Indexes) in [("v2 schema", false), ("v2 without its new indexes", true)] {
            let store = try SQLiteTraceStore(path: folder.file("\(name).sqlite"), bounds: nil)
            if dropV2Indexes {
                try store.pool.write { db in
                    for index in ["exchange_method", "exchange_errors", "exchange_retried", "exchange_replays",
                                  "exchange_storage", "attempt_circuit", "event_kind"] {
                        try db.execute(sql: "DROP INDEX \(index)")
                    }
                }
            }
            var random = SeededGenerator(seed: 5)
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            let batches = (0..<400).map { batch in
                (0..<500).map { Self.exchange(batch * 500 + $0, start: start, random: &random) }
            }
            let began = ContinuousClock.now
            for batch in batches { try store.write(batch) }
            let took = ContinuousClock.now - began
            rates[name] = 200_000 / took.seconds
            print("\(name): 200000 exchanges in \(took) (\(Int(rates[name]!))/s)")
        }
    }
}

private extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
