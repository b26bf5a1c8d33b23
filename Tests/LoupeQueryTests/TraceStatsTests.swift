import Foundation
import Loupe
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeFilter
import LoupeBoard
import Testing
@testable import LoupeTestSupport

@Suite("TraceStats")
struct TraceStatsTests {
    /// `value` within HdrHistogram's 1 % of `exact` (the one aggregator's percentiles: the highest value of the
    /// bucket the rank falls in, where the nearest-rank method it replaced gave `exact` itself).
    static func near(_ value: Double?, _ exact: Double) -> Bool {
        guard let value else { return false }
        return value >= exact && value <= exact * 1.01
    }

    /// Twenty exchanges: `listUsers` on a.test takes k/8 s (k = 1…20, written shuffled); every fifth failed, every
    /// fourth was retried; `createUser` on b.test never finished.
    static func known() -> [TraceExchange] {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        var list: [TraceExchange] = []
        for k in 1...20 {
            let failed = k % 5 == 0
            let attempts: [TraceAttempt] = (1...(k % 4 == 0 ? 2 : 1)).map { TraceAttempt(number: $0, startedAt: start) }
            let events: [TraceEvent] = k < 20 ? [] : [
                TraceEvent(kind: "circuit", at: start, message: "closed → open"),
                TraceEvent(kind: "circuit", at: start, message: "open → half-open"),
                TraceEvent(kind: "retry", at: start, message: "retrying"),
            ]
            list.append(TraceExchange(
                id: UUID(), operation: "listUsers", method: "GET", url: "https://a.test/users", startedAt: start,
                endedAt: start.addingTimeInterval(Double(k) / 8), outcome: failed ? .httpError : .success,
                status: failed ? 503 : 200, requestBody: TraceBody(data: Data(), size: 10, isTruncated: false),
                responseBody: TraceBody(data: Data("x".utf8), size: 1_000, isTruncated: true),
                attempts: attempts, events: events))
        }
        var random = SeededGenerator(seed: 1)
        list.shuffle(using: &random)
        let unfinished = TraceExchange(
            id: UUID(), operation: "createUser", method: "POST", url: "https://b.test/users", startedAt: start,
            outcome: .cancelled)
        return list + [unfinished]
    }

    @Test("figures per group on known data, the same from SQLite and from memory", arguments: StoreKind.allCases)
    func known(kind: StoreKind) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try kind.make(folder, now: TestNow())
        try store.write(Self.known())
        let stats = try storeStats(store, matching: nil)
        #expect(stats.map(\.group) == [.all, .operation("createUser"), .operation("listUsers"), .host("a.test"), .host("b.test")])

        let list = try #require(stats.first { $0.group == .operation("listUsers") })
        #expect(list.count == 20 && list.errorCount == 4 && list.retriedCount == 5)
        #expect(list.errorRate == 0.2 && list.retryRate == 0.25)
        #expect(Self.near(list.p50, 10.0 / 8) && Self.near(list.p95, 19.0 / 8) && Self.near(list.p99, 20.0 / 8))
        #expect(list.requestBytes == 200 && list.responseBytes == 20_000 && list.breakerTransitions == 2)
        let host = try #require(stats.first { $0.group == .host("a.test") })
        #expect(host.count == 20 && Self.near(host.p50, 1.25))

        let create = try #require(stats.first { $0.group == .operation("createUser") })
        #expect(create.count == 1 && create.errorCount == 1 && create.p50 == nil && create.p99 == nil)

        let all = try #require(stats.first)
        #expect(all.count == 21 && all.errorCount == 5 && Self.near(all.p50, 10.0 / 8))

        let failures = try storeStats(store, matching: TraceFilter.parse("~c 5xx"))
        #expect(failures.map(\.group) == [.all, .operation("listUsers"), .host("a.test")])
        #expect(Self.near(failures.first?.p50, 10.0 / 8) && Self.near(failures.first?.p99, 20.0 / 8))  // 5/8, 10/8, 15/8, 20/8
        #expect(try storeStats(store, matching: TraceFilter.parse("~m DELETE")).isEmpty)
    }
}
