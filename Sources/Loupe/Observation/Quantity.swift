import Foundation

/// The one text of each quantity a person reads: durations, ages, byte sizes and counts.
///
/// Every printer uses these: the CLI's tables and lines, the TUI's screens and the event texts the
/// middleware records, so a duration reads `2.01 s` wherever it appears (Documentation/Glossary.md lists the
/// shapes). Machine formats (JSON, stored attributes) keep their own exact units (`durationMs`, ``Duration/storedMilliseconds``).
///
/// Any value is accepted, whatever a store holds: NaN and nil read `—`, infinity `∞`, a negative duration keeps its
/// sign (`-3.0 ms`: clocks that disagree should show it), and absurd magnitudes saturate instead of trapping.
package enum Quantity {
    /// A duration in three significant figures and at most six characters: `0.4 ms`, `12 ms`, `2.01 s`,
    /// `59.9 s`, `125 s`, `12 min`, `5 h`, `6 d`.
    package static func duration(_ seconds: Double?) -> String {
        guard let seconds, !seconds.isNaN else { return "—" }
        guard seconds.magnitude < .infinity else { return seconds < 0 ? "-∞" : "∞" }
        guard seconds >= 0 else { return "-" + duration(-seconds) }
        let s = seconds
        let ms = s * 1000
        // Each branch is taken only when its rounded figure still fits, so 999.7 ms reads `1.00 s`, not `1000 ms`.
        if (ms * 10).rounded() < 100 { return String(format: "%.1f ms", ms) }
        if ms.rounded() < 1000 { return String(format: "%.0f ms", ms) }
        if (s * 100).rounded() < 1000 { return String(format: "%.2f s", s) }
        if (s * 10).rounded() < 1000 { return String(format: "%.1f s", s) }
        if s.rounded() < 600 { return String(format: "%.0f s", s) }
        if (s / 60).rounded() < 100 { return String(format: "%.0f min", s / 60) }
        if (s / 3600).rounded() < 100 { return String(format: "%.0f h", s / 3600) }
        if (s / 86_400).rounded() < 1000 { return String(format: "%.0f d", s / 86_400) }
        return ">999 d"
    }

    /// A Swift `Duration` (a wait, a delay, a timeout) as ``duration(_:)-(Double?)`` writes it.
    package static func duration(_ duration: Duration) -> String {
        self.duration(duration.inSeconds)
    }

    /// How long ago something happened: `12.0 s ago`, `6 d ago` (a time in the future, a clock step, reads
    /// `0.0 ms ago`).
    package static func age(_ seconds: Double) -> String {
        seconds.isNaN ? "—" : duration(max(0, seconds)) + " ago"
    }

    /// A byte count in binary units, three significant figures and at most seven characters: `512 B`, `1.5 KiB`,
    /// `112 KiB`, `3.2 MiB` (1,000 or more of a unit reads in the next one: `1.0 MiB`, never `1023 KiB`).
    ///
    /// Binary because the store's bounds (`--max-bytes`) and every size Loupe prints count in 1,024s; the unit
    /// says so (a `KB` that meant KiB was the inspector's old spelling).
    package static func bytes(_ count: Int) -> String {
        guard count >= 1000 else { return "\(max(0, count)) B" }
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        var value = Double(count) / 1024
        var unit = 0
        while value.rounded() >= 1000, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: (value * 10).rounded() < 100 ? "%.1f " : "%.0f ", value) + units[unit]
    }

    /// A count with thousands separators: `7`, `12,345`, `-1,000`.
    package static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        result.reserveCapacity(digits.count + digits.count / 3)
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }

    /// A count in at most `width` characters after `prefix`: `×12`; one too long to fit reads as the largest
    /// count of nines that fits, marked with `+` and without the prefix (`99+` for 1,176 in three cells), so a
    /// cut count never reads as a smaller one.
    package static func count(_ value: Int, prefix: String, fitting width: Int) -> String {
        let exact = prefix + String(value)
        guard exact.count > width else { return exact }
        return String(repeating: "9", count: max(0, width - 1)) + "+"
    }

    /// A count and its noun, singular or plural: `1 exchange`, `12,345 exchanges`.
    package static func count(_ value: Int, _ singular: String, plural: String? = nil) -> String {
        count(value) + " " + (value == 1 ? singular : plural ?? singular + "s")
    }
}

/// How a person reads an exchange's identity: its store number `#N` where one is known (the number `loupe
/// list` shows and every command's `--id #N` takes), else its id in lowercase.
package enum ExchangeLabel {
    /// `#42`: the exchange's sequence number in its store.
    package static func number(_ sequence: Int64) -> String {
        "#\(sequence)"
    }

    /// The id as every printer writes it, JSON included: lowercase, as RFC 9562 writes UUIDs (the store's own
    /// uppercase text is internal; `--id` takes either case).
    package static func id(_ id: UUID) -> String {
        id.uuidString.lowercased()
    }

    /// `#42` when the exchange's number is known, else its lowercase id.
    package static func reference(_ id: UUID, numbers: [UUID: Int64]) -> String {
        numbers[id].map(number) ?? self.id(id)
    }
}
