import Foundation

/// Wall-clock times as the list shows them: `HH:mm:ss.SSS` in the calendar's time zone.
enum ClockFormat {
    /// What a time no clock can show (NaN, or further than ``limit`` from 2001) reads as.
    static let unknown = "--:--:--.---"
    /// About 31,000 years either side of 2001: milliseconds stay exact in a `Double` well past this.
    static let limit: TimeInterval = 1e12

    static func string(_ date: Date, calendar: Calendar) -> String {
        guard let (parts, millis) = fields(date, calendar: calendar) else { return unknown }
        return clock(parts, millis: millis)
    }

    /// `yyyy-MM-dd HH:mm:ss.SSS` in the calendar's time zone (the detail's start); `unknown` when no clock can
    /// show the time.
    static func dateAndTime(_ date: Date, calendar: Calendar) -> String {
        guard let (parts, millis) = fields(date, calendar: calendar) else { return unknown }
        let year = String(parts.year ?? 0)
        return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-" + two(parts.month ?? 0) + "-"
            + two(parts.day ?? 0) + " " + clock(parts, millis: millis)
    }

    private static func fields(_ date: Date, calendar: Calendar) -> (DateComponents, Int)? {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite, abs(seconds) < limit else { return nil }
        // Whole milliseconds first (with a half-microsecond nudge against binary fractions such as .999 → .998),
        // then the clock fields from the whole second, so the two never disagree.
        let totalMillis = (seconds * 1000 + 0.0005).rounded(.down)
        let wholeSeconds = (totalMillis / 1000).rounded(.down)
        let millis = Int(saturating: totalMillis - wholeSeconds * 1000)
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                            from: Date(timeIntervalSinceReferenceDate: wholeSeconds))
        return (parts, millis)
    }

    private static func clock(_ parts: DateComponents, millis: Int) -> String {
        two(parts.hour ?? 0) + ":" + two(parts.minute ?? 0) + ":" + two(parts.second ?? 0) + "."
            + String(repeating: "0", count: millis < 10 ? 2 : millis < 100 ? 1 : 0) + String(millis)
    }

    private static func two(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
