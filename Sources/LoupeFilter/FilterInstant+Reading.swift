import Foundation
import Loupe
import LoupeTrace

extension FilterInstant {
    /// What `~since` and `~until` accept, for their error messages.
    static let expected = "a time like 10m, 2h, 3d or 2026-12-06T23:30:00Z"

    /// Reads the argument of `~since`/`~until`: a span counted back from `now` (`90s`, `10m`, `2h`, `3d`, decimals
    /// allowed, at most ``TraceTime/maxDuration``), or an ISO-8601 date and time (`2026-12-06`, `2026-12-06T23:30`,
    /// `…:05.250`, with `Z` or `+01:00`, or without a zone for `timeZone`'s wall clock). Nil for anything else,
    /// a date that does not exist (`02-30`) or an instant outside years 0000–9999.
    ///
    /// A span is kept to the whole second below: the canonical text then shows a time a person reads at a glance.
    static func read(_ text: String, now: Date, timeZone: TimeZone) -> FilterInstant? {
        if let span = span(text) {
            let seconds = (now.timeIntervalSince1970 - span).rounded(.down)
            guard TraceTime.range.contains(seconds) else { return nil }
            return FilterInstant(milliseconds: Int64(seconds) * 1000)
        }
        return absolute(Array(text.utf8), timeZone: timeZone)
    }

    /// `10m` as 600 seconds; nil unless a decimal and one of the units s, m, h, d, within the longest duration kept.
    private static func span(_ text: String) -> Double? {
        guard let unit = text.last, let scale = ["s": 1.0, "m": 60, "h": 3600, "d": 86_400][unit] else { return nil }
        let number = String(text.dropLast())
        guard TraceFilterParser.isDecimal(number), let value = Double(number) else { return nil }
        let seconds = value * scale
        guard seconds.isFinite, seconds <= TraceTime.maxDuration else { return nil }
        return seconds
    }

    /// `YYYY-MM-DD[(T| )HH:MM[:SS[.fraction]]][Z|±HH[:MM]]`, every field range-checked; the fraction is kept to the
    /// millisecond below.
    private static func absolute(_ bytes: [UInt8], timeZone: TimeZone) -> FilterInstant? {
        var at = 0
        func digits(_ count: Int) -> Int64? {
            guard at + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[at..<at + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            at += count
            return value
        }
        func take(_ character: Character) -> Bool {
            guard at < bytes.count, bytes[at] == character.asciiValue else { return false }
            at += 1
            return true
        }
        guard let year = digits(4), take("-"), let month = digits(2), (1...12).contains(month), take("-"),
              let day = digits(2), (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        var (hour, minute, second, millis): (Int64, Int64, Int64, Int64) = (0, 0, 0, 0)
        if take("T") || take("t") || take(" ") {
            guard let h = digits(2), h < 24, take(":"), let m = digits(2), m < 60 else { return nil }
            (hour, minute) = (h, m)
            if take(":") {
                guard let s = digits(2), s < 60 else { return nil }
                second = s
                if take(".") {
                    var count = 0
                    while at < bytes.count, (0x30...0x39).contains(bytes[at]) {
                        if count < 3 { millis = millis * 10 + Int64(bytes[at] - 0x30) }
                        count += 1
                        at += 1
                    }
                    guard (1...9).contains(count) else { return nil }
                    if count < 3 { for _ in count..<3 { millis *= 10 } }
                }
            }
        }
        let wall = (CivilDate.days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second)
        let offset: Int64
        if at == bytes.count {
            // The wall clock of `timeZone`: its offset at the instant the wall time names (asked twice, so a time
            // near a change of offset takes the offset in force then).
            let first = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(wall))))
            offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(wall - first))))
        } else if take("Z") || take("z") {
            offset = 0
        } else {
            guard at < bytes.count, bytes[at] == 0x2B || bytes[at] == 0x2D else { return nil }
            let sign: Int64 = bytes[at] == 0x2D ? -1 : 1
            at += 1
            guard let hours = digits(2), hours <= 18 else { return nil }
            let minutes = take(":") || at < bytes.count ? digits(2) : 0
            guard let minutes, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard at == bytes.count else { return nil }
        return FilterInstant(milliseconds: (wall - offset) * 1000 + millis)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
