import Foundation
import Loupe
@testable import LoupeTUI
import Testing

@Suite struct FormattingTests {
    /// The list's duration column is six characters wide: the shared duration text fits it.
    @Test(arguments: [
        (0.0004, "0.4 ms"), (0.0123, "12 ms"), (0.845, "845 ms"), (1.234, "1.23 s"), (12.34, "12.3 s"), (125.0, "125 s"),
        (725.0, "12 min"), (7300.0, "2 h"),
    ])
    func shortDurations(_ seconds: Double, _ text: String) {
        #expect(Quantity.duration(seconds) == text)
        #expect(text.count <= ExchangeColumns.durationWidth)
    }

    @Test func clockUsesTheCalendarTimeZone() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        #expect(Quantity.clock(Fixture.epoch.addingTimeInterval(0.0071), calendar: calendar) == "22:13:20.007")
        calendar.timeZone = TimeZone(secondsFromGMT: 3600)!
        #expect(Quantity.clock(Fixture.epoch.addingTimeInterval(59.999), calendar: calendar) == "23:14:19.999")
    }

    @Test func dateAndTimeForTheDetail() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 3600)!
        #expect(Quantity.dateAndTime(Fixture.epoch.addingTimeInterval(6000.0071), calendar: calendar) == "2023-11-15 00:53:20.007")
        #expect(Quantity.dateAndTime(Date(timeIntervalSince1970: .nan), calendar: calendar) == Quantity.unknownClock)
    }

    /// The timeline's axis writes spans in the duration's units (`5 min`, not `5m`), as the glossary has them.
    @Test(arguments: [(0.125, "125 ms"), (0.5, "500 ms"), (2.5, "2.5 s"), (10.0, "10 s"), (300.0, "5 min"), (7200.0, "2 h")])
    func axisSpans(_ seconds: Double, _ text: String) {
        #expect(Quantity.span(seconds) == text)
    }

    @Test func counts() {
        #expect(Quantity.count(1_234_567) == "1,234,567")
        #expect(Quantity.count(999) == "999")
        #expect(Quantity.bytes(1536) == "1.5 KiB")
    }

    @Test func durationBars() {
        #expect(DurationBar.text(value: 1, maximum: 1, width: 4) == "████")
        #expect(DurationBar.text(value: 0.5625, maximum: 1, width: 2) == "█▏")
        #expect(DurationBar.text(value: 0, maximum: 1, width: 4) == "")
    }
}
