import Foundation
import Loupe
import Testing
@testable import LoupeTrace
@testable import LoupeBoard

@Suite struct BreakerBoardTests {
    typealias F = BoardFixture

    /// Thresholds: a window of 4 calls, 50 %, 30 s open.
    static let config = TraceEvent(kind: .circuitConfigured, at: F.origin, message: "config", attributes: [
        "key": "a.test", "failureRate": "50", "slowCallRate": "100", "slowCallMs": "1000", "minimumCalls": "4",
        "waitMs": "30000", "halfOpenCalls": "2", "windowCalls": "4",
    ])

    @Test("rates over the window, refusals, retries and the open countdown, by hand")
    func openKey() throws {
        var board = BreakerBoard()
        // 1: a slow success; 2: a 503 retried to a 503, which opens the circuit; 3: refused.
        board.add(F.exchange(1, at: 0, duration: 2, attempts: [F.attempt(1, at: 0, duration: 2, status: 200)],
                             events: [Self.config]))
        board.add(F.exchange(2, at: 3, duration: 1, outcome: .httpError,
                             attempts: [F.attempt(1, at: 3, status: 503), F.attempt(2, at: 3.5, status: 503)],
                             events: [F.transition("closed", "open", at: 3.52, reason: "failure rate 67% ≥ 50% over 3 calls",
                                                   extra: ["probeAt": String(F.origin.timeIntervalSince1970 + 33.52)]),
                                      F.budgetDenial]))
        board.add(F.exchange(3, at: 10, duration: 0, outcome: .shortCircuited, attempts: [TraceAttempt(number: 1, startedAt: F.at(10))],
                             events: [TraceEvent(kind: .shortCircuit, at: F.at(10), message: "no",
                                                 attributes: ["key": "a.test", "state": "open"])]))
        let row = try #require(board.rows(now: F.at(20)).first)
        #expect(row.key == "a.test")
        #expect(row.state == .open)
        #expect(row.thresholds.windowCalls == 4 && row.thresholds.isRecorded)
        #expect(row.callsInWindow == 0)  // the move to open emptied it
        #expect(row.notPermitted == 1)
        #expect(row.retries == 1)
        #expect(row.budgetDenied == 1)
        #expect(row.retrySucceeded == 0)
        #expect(abs((row.probeIn ?? 0) - 13.52) < 1e-6)
        #expect(row.lastTransition?.reason == "failure rate 67% ≥ 50% over 3 calls")
        #expect(row.lastTransition?.sequence == 2)
        // The last two minutes up to +20 s: the sparkline's seconds 0, 3 and 10 from its end.
        let series = row.series
        #expect(series.count == 120)
        #expect(series[119 - 20].requests == 1 && series[119 - 20].failures == 0)
        #expect(series[119 - 17].requests == 2 && series[119 - 17].failures == 2)
        #expect(series[119 - 10].requests == 1 && series[119 - 10].failures == 1)
        #expect(board.rows(now: F.at(40)).first?.probeIn == 0)
    }

    @Test("before any transition, the window fills: failure and slow-call rates against the thresholds")
    func closedRates() throws {
        var board = BreakerBoard()
        board.add(F.exchange(1, at: 0, duration: 2, attempts: [F.attempt(1, at: 0, duration: 2, status: 200)], events: [Self.config]))
        for second in 1...4 {
            board.add(F.exchange(Int64(second + 1), at: Double(second), duration: 0.1,
                                 attempts: [F.attempt(1, at: Double(second), status: second.isMultiple(of: 2) ? 500 : 200)]))
        }
        let row = try #require(board.rows(now: F.at(5)).first)
        // The window keeps the last 4 calls: 200, 500, 200, 500 (the slow one fell out).
        #expect(row.callsInWindow == 4)
        #expect(row.failureRate == 50)
        #expect(row.slowCallRate == 0)
        #expect(row.state == .closed)
        #expect(row.probeIn == nil)
    }

    @Test("history keeps every transition with the exchange that caused it; an open without probeAt waits the thresholds' time")
    func history() throws {
        var board = BreakerBoard()
        board.add(F.exchange(7, at: 0, duration: 1, attempts: [F.attempt(1, at: 0, status: 500)],
                             events: [Self.config, F.transition("closed", "open", at: 1, reason: "r1")]))
        board.add(F.exchange(8, at: 40, duration: 1, attempts: [F.attempt(1, at: 40, status: 200, state: "half-open")],
                             events: [F.transition("open", "half-open", at: 40, reason: "wait of 30s elapsed",
                                                   extra: ["timerAt": String(F.origin.timeIntervalSince1970 + 31)]),
                                      F.transition("half-open", "closed", at: 41, reason: "2/2 half-open probes succeeded")]))
        let history = board.history(of: "a.test")
        #expect(history.map(\.to) == ["open", "half-open", "closed"])
        #expect(history.map(\.sequence) == [7, 8, 8])
        #expect(history[0].probeAt == F.at(31))
        #expect(history[1].timerAt == F.at(31))
        #expect(board.rows(now: F.at(50)).first?.state == .closed)
        #expect(board.history(of: "nope").isEmpty)
    }

    @Test("thresholds read from attributes are range-checked; bad ones keep the defaults")
    func thresholds() {
        let read = BreakerThresholds(attributes: ["failureRate": "500", "waitMs": "-3", "windowSeconds": "20", "minimumCalls": "x"])
        #expect(read.failureRate == 50)
        #expect(read.waitInOpen == 60)
        #expect(read.windowSeconds == 20 && read.windowCalls == nil)
        #expect(read.minimumCalls == 20)
        var configuration = CircuitBreakerConfiguration()
        configuration.slidingWindow = .time(seconds: 30)
        configuration.slowCallDuration = .milliseconds(1500)
        #expect(BreakerThresholds(attributes: configuration.recordedAttributes) == BreakerThresholds(configuration))
    }
}
