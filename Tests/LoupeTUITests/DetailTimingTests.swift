import Foundation
import Loupe
@testable import LoupeTUI
import LoupeTrace
import Testing

/// The Timing tab's waterfall: phases, backoff, marks, scale and legend, at any width and on any recorded times.
@Suite struct DetailTimingTests {
    private static let start = Fixture.epoch

    private static func at(_ millis: Double) -> Date { start.addingTimeInterval(millis / 1000) }

    private static func exchange(_ attempts: [TraceAttempt], endMillis: Double? = nil,
                                 outcome: ExchangeOutcome = .success) -> TraceExchange {
        TraceExchange(id: Fixture.id(1), operation: "op", method: "GET", url: "https://h.test/", startedAt: start,
                      endedAt: endMillis.map(at), outcome: outcome, attempts: attempts)
    }

    private static func attempt(_ number: Int, _ start: Double, sent: Double? = nil, firstByte: Double? = nil,
                                end: Double?, status: Int? = 200, error: String? = nil) -> TraceAttempt {
        TraceAttempt(number: number, startedAt: at(start), requestSentAt: sent.map(at), firstByteAt: firstByte.map(at),
                     endedAt: end.map(at), status: status, error: error)
    }

    private func lines(_ exchange: TraceExchange, width: Int) -> [String] {
        TimingWaterfall(exchange: exchange).lines(width: width).map(\.text)
    }

    /// The attempt rows: the lines from the axis to the blank line before the legend.
    private func rows(_ exchange: TraceExchange, width: Int) -> [String] {
        let all = lines(exchange, width: width)
        return Array(all.dropFirst(4).prefix { !$0.isEmpty })
    }

    /// Exchanges with every awkward kind of recording.
    static let awkward: [TraceExchange] = [
        exchange([]),
        exchange([attempt(1, 0, end: nil, status: nil)]),
        exchange([attempt(1, 0, sent: 1, firstByte: 2, end: 3)], endMillis: 0),
        exchange([attempt(1, 500, sent: 400, firstByte: 300, end: 100)], endMillis: 50),
        exchange([TraceAttempt(number: 1, startedAt: Date(timeIntervalSince1970: -1e300),
                               requestSentAt: Date(timeIntervalSince1970: .nan), firstByteAt: .distantFuture,
                               endedAt: Date(timeIntervalSince1970: .infinity), status: 200),
                  TraceAttempt(number: Int.max, startedAt: Date(timeIntervalSince1970: 1e300), status: nil, error: "e")],
                 endMillis: .infinity),
        exchange((1...40).map { attempt($0, Double($0) * 10, sent: Double($0) * 10 + 1, end: Double($0) * 10 + 5) }),
    ]

    @Test(arguments: Array(0...12) + [20, 33, 80, 200, Int.max])
    func everyWidthFitsAndNothingCrashes(_ width: Int) {
        for exchange in Self.awkward + [Self.fixture] where !exchange.attempts.isEmpty {
            let drawn = TimingWaterfall(exchange: exchange).lines(width: width)
            // The summary and legend are text the caller wraps; the scale, axis and rows are drawn to fit.
            for line in drawn.dropFirst(2).prefix(while: { !$0.spans.isEmpty }) {
                #expect(DisplayWidth.of(line.text) <= max(1, min(width, 4096)), "\(width): \(line.text)")
            }
        }
    }

    @Test func aTwoMillisecondAttemptOnATenSecondAxisShowsATick() {
        let exchange = Self.exchange([
            Self.attempt(1, 0, end: 2, status: 503),
            Self.attempt(2, 5000, sent: 5000.5, firstByte: 5001, end: 5002, status: 503),
            Self.attempt(3, 9000, end: 10_000),
        ], endMillis: 10_000)
        for width in [20, 40, 80, 160] {
            let drawn = rows(exchange, width: width)
            #expect(drawn.count == 3)
            // The label column is `#1 503 `: the track starts at column 7.
            #expect(Array(drawn[0])[7] == "▏", "\(width): \(drawn[0])")
            let ticks = Array(drawn[1]).filter { "▏▎▍▌▋▊▉▕▐█░▒▓".contains($0) }
            #expect(ticks.count == 1 && "▏▎▍▌▋▊▉▕▐".contains(ticks[0]), "\(width): \(drawn[1])")
        }
    }

    @Test func phasesHaveTheirOwnFillAndBackoffIsDotted() {
        let exchange = Self.exchange([
            Self.attempt(1, 0, sent: 100, firstByte: 300, end: 400, status: 503),
            Self.attempt(2, 600, sent: 700, firstByte: 900, end: 1000),
        ], endMillis: 1000)
        let drawn = rows(exchange, width: 7 + 40 + 1 + 6)
        let first = drawn[0].dropFirst(7).prefix(16), second = drawn[1].dropFirst(7).prefix(40)
        #expect(String(first) == "▒▒▒▒░░░░░░░░████")
        #expect(String(second) == String(repeating: " ", count: 16) + String(repeating: "┈", count: 8)
            + "▒▒▒▒░░░░░░░░████")
    }

    @Test func marksSayWhatWentWrong() {
        let exchange = Self.exchange([
            Self.attempt(1, 0, sent: 1, end: 10, status: nil, error: "connection reset"),
            Self.attempt(2, 20, end: 20, status: nil, error: "circuit api.example.com is open; next probe in 5s"),
            Self.attempt(3, 30, sent: 31, end: nil, status: nil),
        ], endMillis: nil, outcome: .shortCircuited)
        let drawn = lines(exchange, width: 80)
        let rows = rows(exchange, width: 80)
        #expect(rows[0].hasPrefix("#1 ERR ") && rows[0].hasSuffix(" ✗"))
        #expect(rows[1].hasPrefix("#2 SHRT") && rows[1].hasSuffix(" ⊘"))
        #expect(rows[2].hasPrefix("#3 —   ") && rows[2].hasSuffix(" …"))
        #expect(drawn.last?.contains("✗ error  ⊘ short-circuited  … unfinished") == true)
    }

    @Test func clockSkewIsMarkedAndDrawnAsATick() {
        let exchange = Self.exchange([Self.attempt(1, 500, sent: 400, firstByte: 300, end: 100)], endMillis: 50)
        let drawn = lines(exchange, width: 40)
        #expect(drawn[0] == "total 500 ms  attempts 1")
        let row = rows(exchange, width: 40)[0]
        #expect(row.hasSuffix("0.0 ms !"))
        #expect(drawn.last?.hasSuffix("! clock skew") == true)
    }

    @Test func noAttemptsSaysSo() {
        #expect(lines(Self.exchange([], endMillis: 12), width: 80)
            == ["total 12 ms  attempts 0", "", "No attempts recorded: nothing to draw."])
    }

    @Test func absurdTimesStayOnAFiniteAxis() {
        let waterfall = TimingWaterfall(exchange: Self.awkward[4])
        #expect(waterfall.total == TraceTime.maxDuration)
        #expect(waterfall.rows.allSatisfy { $0.marks.contains(.badClock) })
        #expect(lines(Self.awkward[4], width: 80)[0] == "total >999 d  attempts 2")
    }

    /// Three attempts: a 503, a reset after backoff, and a success.
    static let fixture = exchange([
        attempt(1, 0, sent: 1, firstByte: 5, end: 8, status: 503),
        attempt(2, 300, sent: 302, end: 750, status: nil, error: "connection reset"),
        attempt(3, 1000, sent: 1010, firstByte: 1100, end: 1250),
    ], endMillis: 1250)

    @Test func theFixtureAtEightyColumns() {
        #expect(lines(Self.fixture, width: 80) == [
            "total 1.25 s  attempts 3  backoff 542 ms",
            "",
            "       0                            625 ms                       1.25 s",
            "       ├───────────────────────────────┼──────────────────────────────┤",
            "#1 503 ▍                                                                8.0 ms",
            "#2 ERR ┈┈┈┈┈┈┈┈┈┈┈┈┈┈┈▐░░░░░░░░░░░░░░░░░░░░░░▍                          450 ms ✗",
            "#3 200                                       ┈┈┈┈┈┈┈┈┈┈┈┈┈▒░░░░████████ 250 ms",
            "",
            "▒ send  ░ wait  █ receive  ┈ backoff  ✗ error",
        ])
        let styles = TimingWaterfall(exchange: Self.fixture).lines(width: 80)[6].spans.map(\.style)
        #expect(styles == [.label, .statusSuccess, .normal, .dim, .timingSend, .timingWait, .timingReceive, .normal])
    }

    @Test func theFixtureAtTwentyColumnsDropsTheRightColumn() {
        #expect(lines(Self.fixture, width: 20) == [
            "total 1.25 s  attempts 3  backoff 542 ms",
            "",
            "       0      1.25 s",
            "       ├─────┼─────┤",
            "#1 503 ▏            ",
            "#2 ERR ┈┈┈░░░░▊     ",
            "#3 200         ┈┈▐██",
            "",
            "▒ send  ░ wait  █ receive  ┈ backoff  ✗ error",
        ])
    }

    @Test func atTenColumnsOnlyTheTrackIsLeft() {
        #expect(rows(Self.fixture, width: 10) == ["▏         ", "┈┈▐░░░    ", "      ┈┈░█"])
    }
}
