import Foundation

/// Reads the `Retry-After` response header (RFC 9110 §10.2.3): delta-seconds or an HTTP-date.
package enum RetryAfter {
    /// The wait the header asks for, measured from `now`; `nil` when the value is not valid. A date in the past
    /// means zero.
    package static func delay(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            // A huge delta is still a valid "go away for a long time": saturate at a century rather than reject it.
            let century: Int64 = 3_155_760_000
            return .seconds(min(Int64(trimmed) ?? century, century))
        }
        guard let date = httpDate(trimmed, now: now) else { return nil }
        return RetryMath.duration(seconds: date.timeIntervalSince(now))
    }

    /// Parses the three HTTP-date forms: IMF-fixdate, the obsolete RFC 850 form and asctime.
    ///
    /// `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT`, `Sun Nov  6 08:49:37 1994`.
    package static func httpDate(_ text: String, now: Date) -> Date? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" }).map(String.init)
        let day: String, month: String, year: String, time: String
        switch tokens.count {
        case 6 where tokens[5] == "GMT": (day, month, year, time) = (tokens[1], tokens[2], tokens[3], tokens[4])
        case 5: (month, day, time, year) = (tokens[1], tokens[2], tokens[3], tokens[4])
        default: return nil
        }
        let clock = time.split(separator: ":").compactMap { Int($0) }
        guard let monthNumber = months.firstIndex(of: month).map({ $0 + 1 }), let dayNumber = Int(day),
              var yearNumber = Int(year), clock.count == 3, (1...31).contains(dayNumber),
              (0..<24).contains(clock[0]), (0..<60).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        if year.count == 2 { yearNumber = fullYear(twoDigit: yearNumber, now: now) }
        let days = Int(CivilDate.days(year: Int64(yearNumber), month: Int64(monthNumber), day: Int64(dayNumber)))
        let seconds = days * 86_400 + clock[0] * 3_600 + clock[1] * 60 + clock[2]
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// RFC 9110: a two-digit year more than 50 years in the future means the most recent past year with those digits.
    private static func fullYear(twoDigit: Int, now: Date) -> Int {
        let currentYear = 1970 + Int(now.timeIntervalSince1970 / 31_556_952)
        var year = currentYear - currentYear % 100 + twoDigit
        if year > currentYear + 50 { year -= 100 }
        return year
    }
}
