import Foundation

/// Times a person reads: the wall clock (`HH:mm:ss.SSS`, and with its date), and round spans on a scale.
extension Quantity {
    /// What a time no clock can show (NaN, or further than ``clockLimit`` from 2001) reads as.
    package static let unknownClock = "--:--:--.---"
    /// About 31,000 years either side of 2001: milliseconds stay exact in a `Double` well past this.
    static let clockLimit: TimeInterval = 1e12

    /// `HH:mm:ss.SSS` in the calendar's time zone: the exchanges list, the timeline, events.
    package static func clock(_ date: Date, calendar: Calendar) -> String {
        guard let (parts, millis) = clockFields(date, calendar: calendar) else { return unknownClock }
        return clock(parts, millis: millis)
    }

    /// `yyyy-MM-dd HH:mm:ss.SSS` in the calendar's time zone (the detail's start, `loupe list`); ``unknownClock``
    /// when no clock can show the time.
    package static func dateAndTime(_ date: Date, calendar: Calendar) -> String {
        guard let (parts, millis) = clockFields(date, calendar: calendar) else { return unknownClock }
        let year = String(parts.year ?? 0)
        return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-" + two(parts.month ?? 0) + "-"
            + two(parts.day ?? 0) + " " + clock(parts, millis: millis)
    }

    /// A round span or an offset on a scale (the timeline's axis), in as few figures as it needs and the units of
    /// ``duration(_:)-(Double?)``: `125 ms`, `2.5 s`, `10 s`, `5 min`, `1 h`.
    package static func span(_ seconds: TimeInterval) -> String {
        let magnitude = abs(seconds)
        if magnitude < 1 { return String(format: "%.0f ms", seconds * 1000) }
        if magnitude < 60 {
            return String(format: magnitude.truncatingRemainder(dividingBy: 1) == 0 ? "%.0f s" : "%.1f s", seconds)
        }
        if magnitude < 3_600 { return String(format: "%.0f min", seconds / 60) }
        return String(format: "%.0f h", seconds / 3_600)
    }

    private static func clockFields(_ date: Date, calendar: Calendar) -> (DateComponents, Int)? {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite, abs(seconds) < clockLimit else { return nil }
        // Whole milliseconds first (with a half-microsecond nudge against binary fractions such as .999 → .998),
        // then the clock fields from the whole second, so the two never disagree.
        let totalMillis = (seconds * 1000 + 0.0005).rounded(.down)
        let wholeSeconds = (totalMillis / 1000).rounded(.down)
        let millis = Int(totalMillis - wholeSeconds * 1000)  // 0…999: the guard keeps both finite and in range
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
