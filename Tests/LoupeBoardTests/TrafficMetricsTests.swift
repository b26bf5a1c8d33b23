import Foundation
import Loupe
@testable import LoupeQuery
import Testing
@testable import LoupeTrace
@testable import LoupeBoard

@Suite struct TrafficMetricsTests {
    typealias F = BoardFixture

    /// A at −100 s (get-a, 100 ms), B at −30 s (get-a, 200 ms, 503 after a retry), C at +1 s (get-b on b.test,
    /// 300 ms, retried to success, one budget denial), D at −2,000 s (get-a, 50 ms).
    static func metrics() -> TrafficMetrics {
        var metrics = TrafficMetrics()
        metrics.add(F.exchange(1, at: -100, duration: 0.1))
        metrics.add(F.exchange(2, at: -30, duration: 0.2, outcome: .httpError,
                               attempts: [F.attempt(1, at: -30, status: 503), F.attempt(2, at: -29.8, status: 503)]))
        metrics.add(F.exchange(3, operation: "get-b", host: "b.test", at: 1, duration: 0.3,
                               attempts: [F.attempt(1, at: 1, status: 503), F.attempt(2, at: 1.1, status: 503),
                                          F.attempt(3, at: 1.2, status: 200)], events: [F.budgetDenial]))
        metrics.add(F.exchange(4, at: -2_000, duration: 0.05))
        return metrics
    }

    @Test("a 1 m window at +5 s holds the slots from −50 s: B and C, figures by hand")
    func oneMinute() throws {
        let rows = Self.metrics().rows(window: .oneMinute, now: F.at(5))
        let all = try #require(rows.first)
        #expect(all.group == .all)
        #expect(all.counts.requests == 2)
        #expect(all.counts.errors == 1)
        #expect(all.counts.retried == 2)
        #expect(all.counts.retries == 3)
        #expect(all.counts.budgetDenied == 1)
        #expect(all.counts.retrySucceeded == 1)
        // The window runs from −50 s to now (+5 s): the current slot is only half over.
        #expect(all.rate == 2.0 / 55)
        // p50 of {200, 300} ms is 200 ms, in a 1,024 µs bucket starting at 199,680 µs: its top, 200,703 µs.
        #expect(all.p50 == 0.200703)
        #expect(all.max == 0.3)
        #expect(all.rateSeries.count == 6)
        #expect(all.rateSeries == [0, 0, 0.1, 0, 0, 0.1])
        #expect(rows.map(\.group) == [.all, .operation("get-a"), .operation("get-b"), .host("a.test"), .host("b.test")])
    }

    @Test("a recording younger than the window: RATE divides by the 15 s it covers, not the 5 minutes (issue 43.12)")
    func rateOverTheTimeCovered() throws {
        var metrics = TrafficMetrics()
        // 18 a second for 15 s, ending now; one `rare` exchange 1 s ago.
        for index in 0..<270 { metrics.add(F.exchange(Int64(index), at: -15 + Double(index) / 18, duration: 0.01)) }
        metrics.add(F.exchange(270, operation: "rare", at: -1, duration: 0.01))
        let rows = metrics.rows(window: .fiveMinutes, now: F.at(0))
        let all = try #require(rows.first)
        #expect(abs(all.rate - 271.0 / 15) < 1e-9)
        // The rare operation shares the recording's 15 s: one exchange in 15 s, not one a second.
        #expect(rows.first(where: { $0.group == .operation("rare") })?.rate == 1.0 / 15)
        // A store read the moment its first exchange lands: a second, not a division by zero.
        var first = TrafficMetrics()
        first.add(F.exchange(1, at: 0, duration: 0.01))
        #expect(first.rows(window: .oneMinute, now: F.at(0)).first?.rate == 1)
    }

    @Test("all time counts every exchange; its rate runs from the first start to the last")
    func allTime() throws {
        let all = try #require(Self.metrics().rows(window: .all, now: F.at(5)).first)
        #expect(all.counts.requests == 4)
        #expect(all.rate == 4.0 / 2_001)
        #expect(all.max == 0.3)
    }

    @Test("an hour uses minute slots: D (−2,000 s) is in, at +5 s")
    func oneHour() throws {
        let rows = Self.metrics().rows(window: .oneHour, now: F.at(5))
        #expect(rows.first?.counts.requests == 4)
        #expect(rows.first(where: { $0.group == .operation("get-a") })?.counts.requests == 3)
        #expect(Self.metrics().rows(window: .fifteenMinutes, now: F.at(5)).first?.counts.requests == 3)
    }

    @Test("fed in batches from a store or all at once, the same rows (the stats command and the screen agree)")
    func batchesAgree() throws {
        let store = try SQLiteTraceStore(path: FileManager.default.temporaryDirectory
            .appendingPathComponent("metrics-\(UUID().uuidString).sqlite").path)
        var exchanges: [TraceExchange] = []
        for index in 0..<25 {
            exchanges.append(F.exchange(0, operation: "op\(index % 3)", at: Double(-index * 7), duration: Double(index) / 100,
                                        outcome: index % 4 == 0 ? .httpError : .success))
        }
        try store.write(exchanges)
        let whole = try store.trafficMetrics(matching: nil)
        var incremental = TrafficMetrics()
        while true {
            let batch = try store.activity(after: incremental.lastSequence, limit: 4)
            if batch.isEmpty { break }
            batch.forEach { incremental.add($0) }
        }
        for window in MetricsWindow.allCases {
            #expect(whole.rows(window: window, now: F.at(3)) == incremental.rows(window: window, now: F.at(3)))
        }
        #expect(whole.rows(window: .all, now: F.at(3)).first?.counts.requests == 25)
    }

    /// Read at `now`, exchanges older than every window ending then fill no time slot, and every window ending then
    /// or later shows what it would have shown anyway.
    @Test("tabulating keeps all-time percentiles only while a group gets nothing new: the rows stay the rows")
    func tabulateAgreesWithRows() {
        var metrics = Self.metrics()
        let now = F.at(5)
        for window in MetricsWindow.allCases {
            #expect(metrics.tabulate(window: window, now: now) == metrics.rows(window: window, now: now), "\(window)")
        }
        // A new exchange in one group: its kept percentiles no longer hold (a slower one moves the max).
        metrics.add(F.exchange(5, at: 2, duration: 4.5))
        let fresh = metrics.rows(window: .all, now: now)
        #expect(metrics.tabulate(window: .all, now: now) == fresh)
        #expect(fresh.first { $0.group == .all }?.max == 4.5)
    }

    @Test func exchangesTooOldForAnyWindowFillNoSlot() {
        var kept = TrafficMetrics(), bounded = TrafficMetrics()
        let now = F.at(0)
        // Every 10 s from ten hours to two hours before now, then two recent ones.
        var starts = stride(from: -36_000.0, to: -7_200, by: 10).map { $0 }
        starts += [-300, -30]
        for (index, start) in starts.enumerated() {
            let exchange = F.exchange(Int64(index + 1), at: start, duration: Double(index % 7) / 10)
            kept.add(exchange)
            bounded.add(exchange, now: now)
        }
        #expect(kept.filledSlots == 3 * (90 + 60), "every slot of both rings, for all, the operation and the host")
        #expect(bounded.filledSlots == 3 * (2 + 2), "only the two recent ones, in each ring of each group")
        for window in MetricsWindow.allCases {
            for later in [0.0, 30, 600, 4_000] {
                #expect(bounded.rows(window: window, now: F.at(later)) == kept.rows(window: window, now: F.at(later)),
                        "\(window) at +\(later) s")
            }
        }
    }

    /// A slot's sparkline point is settled once a newer slot begins; a late exchange in it unsettles it. Each point
    /// equals the p95 of that slot's own durations.
    @Test func settledSparklinePointsAreEachSlotsP95() {
        var metrics = TrafficMetrics()
        var bySlot: [Int: [Double]] = [:]
        func add(_ sequence: Int64, at start: Double, _ duration: Double) {
            metrics.add(F.exchange(sequence, at: start, duration: duration))
            bySlot[Int((F.at(start).timeIntervalSince1970 / 10).rounded(.down)), default: []].append(duration)
        }
        var sequence: Int64 = 0
        for slot in 0..<6 {
            for index in 0..<(slot + 3) {
                sequence += 1
                add(sequence, at: -55 + Double(slot * 10) + Double(index), Double(index + 1) * 0.01 * Double(slot + 1))
            }
        }
        sequence += 1
        add(sequence, at: -54, 9.5)  // late, into the first slot, already settled
        let row = metrics.rows(window: .oneMinute, now: F.at(5)).first { $0.group == .all }
        let expected: [Double?] = (0..<6).map { back in
            let number = Int((F.at(5).timeIntervalSince1970 / 10).rounded(.down)) - 5 + back
            guard let durations = bySlot[number] else { return nil }
            var histogram = LatencyHistogram()
            durations.forEach { histogram.record($0) }
            return histogram.percentile(95)
        }
        #expect(row?.p95Series == expected)
        #expect(expected.compactMap { $0 }.count >= 5)
    }
}

/// gRPC calls in `stats` and the metrics screen: one row per method, the messages' sizes as its bytes either way
/// (a gRPC exchange has no body), and an attempt grpc-swift's retry policy sent again, recorded as an exchange of
/// its own, counted as a retry.
@Suite struct GRPCTrafficMetricsTests {
    typealias F = BoardFixture

    static func call(_ sequence: Int64, method: String, at start: Double, attempt: Int, code: Int,
                     sent: [Int], received: [Int]) -> TraceExchange {
        var exchange = F.exchange(sequence, operation: "loupe.demo.Warehouse/\(method)", host: "127.0.0.1", at: start,
                                  duration: 0.01, outcome: code == 0 ? .success : .httpError,
                                  attempts: [F.attempt(attempt, at: start, status: 200)])
        let messages = (sent.map { (MessageDirection.sent, $0) } + received.map { (.received, $0) }).enumerated().map {
            TraceMessage(index: $0.offset, direction: $0.element.0, at: F.at(start + 0.001 * Double($0.offset)),
                         type: "message", size: $0.element.1, payload: Data())
        }
        exchange.stream = TraceStream(kind: .grpc, messages: messages, sentCount: sent.count, receivedCount: received.count,
                                      closeCode: code, closedBy: "server")
        return exchange
    }

    @Test func methodsAreRowsWithTheirMessagesBytesAndRetriedAttempts() throws {
        var metrics = TrafficMetrics()
        metrics.add(Self.call(1, method: "Reserve", at: -3, attempt: 1, code: 14, sent: [11], received: []))
        metrics.add(Self.call(2, method: "Reserve", at: -2.9, attempt: 2, code: 0, sent: [11], received: [23]))
        metrics.add(Self.call(3, method: "Reserve", at: -2, attempt: 1, code: 0, sent: [9], received: [21]))
        metrics.add(Self.call(4, method: "Watch", at: -1, attempt: 1, code: 0, sent: [5], received: [10, 10, 10]))
        let rows = metrics.rows(window: .oneMinute, now: F.at(0))
        let reserve = try #require(rows.first { $0.group == .operation("loupe.demo.Warehouse/Reserve") })
        #expect(reserve.counts.requests == 3 && reserve.counts.errors == 1)
        #expect(reserve.counts.retried == 1 && reserve.counts.retries == 1 && reserve.counts.retrySucceeded == 1)
        #expect(reserve.counts.requestBytes == 31 && reserve.counts.responseBytes == 44)
        let watch = try #require(rows.first { $0.group == .operation("loupe.demo.Warehouse/Watch") })
        #expect(watch.counts.requestBytes == 5 && watch.counts.responseBytes == 30 && watch.counts.retried == 0)
        #expect(watch.streams?.streams == 1)
        let all = try #require(rows.first)
        #expect(TraceStats(all).retriedCount == 1 && TraceStats(all).requestBytes == 36)
    }
}
