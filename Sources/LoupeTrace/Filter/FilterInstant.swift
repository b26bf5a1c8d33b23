import Foundation

/// The instant a `~since` or `~until` term compares start times with: whole milliseconds since 1970, within
/// ``TraceTime/range``.
///
/// Milliseconds, because the canonical text (ISO-8601 in UTC, `2026-12-06T23:30:00.250Z`) must read back as the
/// same instant, and both evaluators compare the same `Double` (``seconds``) with the store's seconds since 1970.
public struct FilterInstant: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public let milliseconds: Int64

    /// Milliseconds within ``TraceTime/range`` (years 0000–9999).
    package static let millisecondRange: ClosedRange<Int64> =
        Int64(TraceTime.range.lowerBound * 1000)...Int64((TraceTime.range.upperBound * 1000).rounded())

    /// The instant, or nil outside ``millisecondRange``.
    package init?(milliseconds: Int64) {
        guard Self.millisecondRange.contains(milliseconds) else { return nil }
        self.milliseconds = milliseconds
    }

    /// Seconds since 1970, as the store keeps `started_at`: what both evaluators compare.
    public var seconds: Double { Double(milliseconds) / 1000 }

    public static func < (lhs: FilterInstant, rhs: FilterInstant) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// `2026-12-06T23:30:00Z`, with `.mmm` when the milliseconds are not zero: the text the parser reads back.
    public var description: String {
        let (secondsSince1970, millis) = Self.floorDivide(milliseconds, 1000)
        let (days, secondOfDay) = Self.floorDivide(secondsSince1970, 86_400)
        let (year, month, day) = Self.civil(fromDays: days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        var text = "\(yearText)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
        if millis != 0 {
            let digits = String(millis)
            text += "." + String(repeating: "0", count: 3 - digits.count) + digits
        }
        return text + "Z"
    }

    /// Quotient rounded down and a remainder that is never negative.
    package static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = ((value % divisor) + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (ISO-8601's calendar; Foundation's switches to the
    /// Julian calendar before 1582). Howard Hinnant's `days_from_civil`.
    package static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Hinnant's `civil_from_days`).
    package static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
