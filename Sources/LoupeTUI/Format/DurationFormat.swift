import Foundation

/// Short human durations and sizes: `0.4ms`, `12ms`, `1.23s`, `2m05s`; `512 B`, `1.5 KB`.
enum DurationFormat {
    /// At most 6 columns, for the list.
    static func short(_ seconds: TimeInterval) -> String {
        let millis = seconds * 1000
        switch millis {
        case ..<0: return "0ms"
        case ..<10: return String(format: "%.1fms", millis)
        case ..<1000: return "\(Int(millis.rounded()))ms"
        case ..<10_000: return String(format: "%.2fs", seconds)
        case ..<100_000: return String(format: "%.1fs", seconds)
        case ..<600_000: return "\(Int(seconds.rounded()))s"
        default:
            let total = Int(seconds.rounded())
            return total >= 6000 ? "\(total / 3600)h" : "\(total / 60)m"
        }
    }

    /// Milliseconds with one decimal, for attempt timings (`120.5 ms`).
    static func millis(_ seconds: TimeInterval) -> String {
        String(format: "%.1f ms", seconds * 1000)
    }

    /// A byte count (`512 B`, `1.5 KB`, `3.2 MB`).
    static func bytes(_ count: Int) -> String {
        switch count {
        case ..<1024: return "\(count) B"
        case ..<(1024 * 1024): return String(format: "%.1f KB", Double(count) / 1024)
        default: return String(format: "%.1f MB", Double(count) / 1024 / 1024)
        }
    }

    /// An integer with thousands separators (`12,345`).
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }
}
