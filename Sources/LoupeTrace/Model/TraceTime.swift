import Foundation

/// The one place that decides which numbers Loupe takes as times and durations when they come from outside:
/// HAR files it imports, and rows of stores written by any version (older ones stored whatever they were given).
///
/// Instants are kept within years 0000–9999 (what HAR's `startedDateTime` text can carry); durations within
/// 0 – ``maxDuration``. So everything that shows a recording (the TUI, `list`, `show`, `--json`, HAR export)
/// only ever meets finite numbers of sane size.
///
/// | Where | Value | Becomes |
/// |-------|-------|---------|
/// | HAR import: instants (`_loupe` times, `startedDateTime`) | outside years 0000–9999 | the entry is refused, naming the field |
/// | HAR import: phases and durations (`time`, `timings.*`, `retryDelay`) | negative, not finite, over ``maxDuration`` | unknown, as HAR's own `-1` |
/// | Reading a store: instants | not finite / outside the years | unknown (`nil`) / clamped to the nearest end |
/// | Reading a store, and ``TraceExchange/duration``: durations | not finite / outside 0 – ``maxDuration`` | unknown (`nil`) / clamped |
package enum TraceTime {
    /// Seconds since 1970 of 0000-01-01T00:00:00Z through 9999-12-31T23:59:59.999Z.
    package static let range: ClosedRange<TimeInterval> = -62_167_219_200...253_402_300_799.999
    /// The longest duration kept: a billion seconds, about 32 years.
    package static let maxDuration: TimeInterval = 1e9

    /// The instant `seconds` after 1970, or nil when it is not finite or outside ``range`` (for input to check).
    package static func instant(_ seconds: TimeInterval) -> Date? {
        range.contains(seconds) ? Date(timeIntervalSince1970: seconds) : nil
    }

    /// The instant `seconds` after 1970 brought into ``range``; nil when it is not a finite number (for values
    /// already stored, which are shown rather than refused).
    package static func clampedInstant(_ seconds: TimeInterval?) -> Date? {
        guard let seconds, seconds.isFinite else { return nil }
        return Date(timeIntervalSince1970: min(max(seconds, range.lowerBound), range.upperBound))
    }

    /// A measured duration in seconds: finite, not negative and at most ``maxDuration``; nil (unknown) otherwise.
    package static func measured(_ seconds: TimeInterval?) -> TimeInterval? {
        guard let seconds, seconds >= 0, seconds <= maxDuration else { return nil }
        return seconds
    }

    /// A duration brought into `0...maxDuration`; nil when it is not a finite number.
    package static func clampedDuration(_ seconds: TimeInterval?) -> TimeInterval? {
        guard let seconds, seconds.isFinite else { return nil }
        return min(max(seconds, 0), maxDuration)
    }
}
