import Foundation

/// Short human quantities: durations (`0.4ms`, `12ms`, `1.23s`, `2m05s`), byte sizes (`512 B`, `1.5 KB`) and
/// counts (`12,345`).
///
/// Any `Double` is accepted, whatever a store holds: NaN shows as `—`, negative as `0ms`, and values too large
/// to be real saturate (`>9999h`, `∞`) instead of trapping in an integer conversion.
enum QuantityFormat {
    /// At most 6 columns, for the list.
    static func short(_ seconds: TimeInterval) -> String {
        guard !seconds.isNaN else { return "—" }
        guard seconds != .infinity else { return "∞" }
        let millis = seconds * 1000
        switch millis {
        case ..<0: return "0ms"
        case ..<10: return String(format: "%.1fms", millis)
        case ..<1000: return "\(Int(saturating: millis))ms"
        case ..<10_000: return String(format: "%.2fs", seconds)
        case ..<100_000: return String(format: "%.1fs", seconds)
        case ..<600_000: return "\(Int(saturating: seconds))s"
        default:
            let total = Int(saturating: seconds)
            guard total >= 6000 else { return "\(total / 60)m" }
            return total / 3600 > 9999 ? ">9999h" : "\(total / 3600)h"
        }
    }

    /// Milliseconds with one decimal, for attempt timings (`120.5 ms`); NaN and infinities show as `—`.
    static func millis(_ seconds: TimeInterval) -> String {
        let millis = seconds * 1000
        guard millis.isFinite else { return "—" }
        // Past a billion milliseconds the decimals say nothing and the digits would fill the line.
        return String(format: abs(millis) < 1e9 ? "%.1f ms" : "%.3g ms", millis)
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
