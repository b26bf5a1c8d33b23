import Foundation

/// Wall-clock times as the list shows them: `HH:mm:ss.SSS` in the calendar's time zone.
enum ClockFormat {
    static func string(_ date: Date, calendar: Calendar) -> String {
        // Whole milliseconds first (with a half-microsecond nudge against binary fractions such as .999 → .998),
        // then the clock fields from the whole second, so the two never disagree.
        let totalMillis = (date.timeIntervalSinceReferenceDate * 1000 + 0.0005).rounded(.down)
        let wholeSeconds = (totalMillis / 1000).rounded(.down)
        let millis = Int(totalMillis - wholeSeconds * 1000)
        let parts = calendar.dateComponents([.hour, .minute, .second],
                                            from: Date(timeIntervalSinceReferenceDate: wholeSeconds))
        return two(parts.hour ?? 0) + ":" + two(parts.minute ?? 0) + ":" + two(parts.second ?? 0) + "."
            + String(repeating: "0", count: millis < 10 ? 2 : millis < 100 ? 1 : 0) + String(millis)
    }

    private static func two(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
