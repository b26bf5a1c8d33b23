import Foundation
import Loupe
import LoupeTrace

/// `startedDateTime` text: written as UTC with milliseconds, read in every ISO 8601 shape HAR writers use.
///
/// Hand-rolled rather than a `DateFormatter`, so it needs no locale, is the same on every platform, and reads
/// any number of fractional digits (mitmproxy writes microseconds) and any zone (`Z`, `+01:00`, `+0100`, none).
package enum HARDate {
    /// `2024-05-01T12:00:00.123Z` (milliseconds rounded down, so the text never reaches the next second).
    package static func string(from date: Date) -> String {
        let fields = utcFields(of: date)
        return pad(fields.year, 4) + "-" + pad(fields.month, 2) + "-" + pad(fields.day, 2) + "T" + pad(fields.hour, 2)
            + ":" + pad(fields.minute, 2) + ":" + pad(fields.second, 2) + "." + pad(fields.millisecond, 3) + "Z"
    }

    /// The fields ``string(from:)`` writes (the export writes them as bytes, without a `String` each).
    static func utcFields(of date: Date)
        -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int) {
        // Outside years 0...9999 ISO 8601 needs an expanded form nobody reads; such dates are clamped (and NaN,
        // which no comparison moves, is taken as 1970 rather than trapping in the integer conversion below).
        let raw = date.timeIntervalSince1970
        let seconds = raw.isNaN ? 0 : min(max(raw, TraceTime.range.lowerBound), TraceTime.range.upperBound)
        let totalMilliseconds = Int64((seconds * 1000).rounded(.down))
        let (days, millisecond) = CivilDate.floorDivide(totalMilliseconds, 86_400_000)
        let (year, month, day) = CivilDate.civil(fromDays: days)
        let millisecondOfDay = Int(millisecond)
        let secondOfDay = millisecondOfDay / 1000
        return (Int(year), Int(month), Int(day), secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60, millisecondOfDay % 1000)
    }

    /// Reads `YYYY-MM-DDThh:mm[:ss[.fraction]][Z|±hh[:mm]]` (a space may replace `T`; no zone means UTC).
    package static func date(from text: String) -> Date? {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.skip("-"), let month = scanner.number(digits: 2),
              scanner.skip("-"), let day = scanner.number(digits: 2), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var secondOfDay = 0.0
        if scanner.skip("T") || scanner.skip("t") || scanner.skip(" ") {
            guard let hour = scanner.number(digits: 2), scanner.skip(":"), let minute = scanner.number(digits: 2),
                  hour <= 24, minute <= 59 else { return nil }
            var second = 0.0
            if scanner.skip(":") {
                guard let whole = scanner.number(digits: 2), whole <= 60 else { return nil }
                second = Double(whole)
                if scanner.skip(".") || scanner.skip(",") {
                    guard let fraction = scanner.fraction() else { return nil }
                    second += fraction
                }
            }
            secondOfDay = Double(hour * 3600 + minute * 60) + second
        }
        var offset = 0
        if scanner.skip("Z") || scanner.skip("z") {
            offset = 0
        } else if let sign = scanner.sign() {
            guard let hours = scanner.number(digits: 2), hours <= 23 else { return nil }
            _ = scanner.skip(":")
            let minutes = scanner.number(digits: 2) ?? 0
            guard minutes <= 59 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard scanner.isAtEnd else { return nil }
        let days = CivilDate.days(year: Int64(year), month: Int64(month), day: Int64(day))
        return Date(timeIntervalSince1970: Double(days) * 86_400 + secondOfDay - Double(offset))
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// A cursor over ASCII bytes.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        var isAtEnd: Bool { index == bytes.count }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        /// Exactly `digits` decimal digits.
        mutating func number(digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + digits] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += digits
            return value
        }

        /// `.123456…` after the dot: one digit or more, as a fraction of a second.
        mutating func fraction() -> Double? {
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            guard index > start else { return nil }
            return Double("0." + String(decoding: bytes[start..<index], as: UTF8.self))
        }

        mutating func sign() -> Int? {
            if skip("+") { return 1 }
            if skip("-") { return -1 }
            return nil
        }
    }
}
