import Foundation

/// Cells of the aggregate tables: numbers right-aligned in fixed widths, durations and rates in short units.
enum TableText {
    static func pad(_ text: String, _ width: Int, right: Bool = true) -> String {
        let text = DisplayWidth.truncate(text, to: width)
        let gap = String(repeating: " ", count: max(0, width - DisplayWidth.of(text)))
        return right ? gap + text : text + gap
    }

    /// `0.8ms`, `12ms`, `1.25s`; `—` when unknown.
    static func duration(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite else { return "—" }
        if seconds < 0.01 { return String(format: "%.1fms", seconds * 1000) }
        if seconds < 1 { return String(format: "%.0fms", seconds * 1000) }
        if seconds < 100 { return String(format: "%.2fs", seconds) }
        return String(format: "%.0fs", min(seconds, 1e9))
    }

    /// `12%`, `0.5%`; `—` when unknown.
    static func percent(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "—" }
        return value > 0 && value < 1 ? String(format: "%.1f%%", value) : String(format: "%.0f%%", value)
    }

    /// `3.2/s`, `120/s`.
    static func rate(_ perSecond: Double) -> String {
        guard perSecond.isFinite, perSecond > 0 else { return "0/s" }
        if perSecond < 1 { return String(format: "%.2f/s", perSecond) }
        return perSecond < 10 ? String(format: "%.1f/s", perSecond) : String(format: "%.0f/s", min(perSecond, 1e9))
    }
}
