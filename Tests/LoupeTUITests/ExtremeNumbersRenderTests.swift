import Foundation
import Loupe
import LoupeTrace
@testable import LoupeTUI
import Testing

/// Whatever numbers reach the TUI (a store written by an older version, an exchange built in code), the
/// list and the detail view render; no integer conversion traps.
@Suite struct ExtremeNumbersRenderTests {
    static let durations: [Double] = [.infinity, -.infinity, .nan, 1e300, -1e300, 0, -2.5, 1e9, 9.3e18, .leastNonzeroMagnitude]
    static let instants: [Double] = [.infinity, -.infinity, .nan, 1e300, -1e300, 0, -62_167_219_200, 1e12, -1e15]

    /// Summaries as a store or code could hand them over: any duration, any start.
    static var summaries: [TraceSummary] {
        durations.enumerated().map { index, duration in
            var summary = Fixture.exchange(index + 1, attempts: index % 3 + 1).summary
            summary.duration = duration
            summary.startedAt = Date(timeIntervalSince1970: instants[index % instants.count])
            summary.status = [200, 503, -1, Int.max, Int.min, 0, 99_999][index % 7]
            summary.attemptCount = [1, Int.max, -5][index % 3]
            return summary
        }
    }

    @Test func theListRendersAnyDurationAndStart() {
        let context = RenderContext(session: TUISession(), calendar: Calendar(identifier: .gregorian), search: "a")
        for size in [Size(width: 120, height: 40), Size(width: 40, height: 12), Size(width: 1, height: 1)] {
            var buffer = Buffer(size: size)
            ExchangesScreen(window: ExchangeWindow(rows: Self.summaries)).render(in: Rect(size: size), into: &buffer, context: context)
            #expect(buffer.lines.count == size.height)
            // Each row alone too, so the bars scale to every value in turn.
            for summary in Self.summaries {
                var single = Buffer(size: size)
                ExchangesScreen(window: ExchangeWindow(rows: [summary])).render(in: Rect(size: size), into: &single, context: context)
            }
        }
    }

    @Test func theDetailViewRendersAnyTimes() throws {
        for (index, start) in Self.instants.enumerated() {
            for duration in Self.durations {
                var exchange = Fixture.exchange(index + 1, attempts: 2, events: [
                    TraceEvent(kind: "retry", at: Date(timeIntervalSince1970: duration), message: "m"),
                ])
                exchange.startedAt = Date(timeIntervalSince1970: start)
                exchange.endedAt = Date(timeIntervalSince1970: start + duration)
                exchange.attempts[0].endedAt = Date(timeIntervalSince1970: duration)
                exchange.attempts[1].retryDelay = duration
                exchange.responseBody = TraceBody(data: Data("x".utf8), size: [Int.max, Int.min, -1][index % 3],
                                                  isTruncated: true)
                let (app, screen) = Fixture.app(try Fixture.store([exchange]), width: 100, height: 30)
                for key in [Key.enter, .tab, .tab, .tab, .tab] {
                    screen.press(key)
                    app.turn(on: screen)
                    #expect(screen.lines.count == 30)
                }
            }
        }
    }

    @Test func formattersNeverTrap() {
        let calendar = Calendar(identifier: .gregorian)
        for value in Self.durations + Self.instants {
            _ = Quantity.duration(value)
            _ = Quantity.age(value)
            _ = Quantity.clock(Date(timeIntervalSince1970: value), calendar: calendar)
            _ = Quantity.dateAndTime(Date(timeIntervalSince1970: value), calendar: calendar)
            for maximum in Self.durations { _ = DurationBar.text(value: value, maximum: maximum, width: 12) }
        }
        #expect(Quantity.duration(.nan) == "—")
        #expect(Quantity.duration(.infinity) == "∞")
        #expect(Quantity.duration(1e300) == ">999 d")
        #expect(Quantity.duration(-1e300) == "->999 d")
        #expect(Quantity.age(.nan) == "—")
        #expect(Quantity.clock(Date(timeIntervalSince1970: .infinity), calendar: calendar) == Quantity.unknownClock)
        #expect(DurationBar.text(value: .infinity, maximum: 1, width: 5) == "")
        #expect(Int(saturating: .nan) == 0 && Int(saturating: 1e300) == .max && Int(saturating: -.infinity) == .min)
    }
}
