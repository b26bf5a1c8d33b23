import Foundation
import Loupe

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
        let (secondsSince1970, millis) = CivilDate.floorDivide(milliseconds, 1000)
        let (days, secondOfDay) = CivilDate.floorDivide(secondsSince1970, 86_400)
        let (year, month, day) = CivilDate.civil(fromDays: days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        var text = "\(yearText)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
        if millis != 0 {
            let digits = String(millis)
            text += "." + String(repeating: "0", count: 3 - digits.count) + digits
        }
        return text + "Z"
    }
}
