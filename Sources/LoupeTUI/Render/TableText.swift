import Foundation

/// Cells of the aggregate tables: numbers right-aligned in fixed widths, rates in short units (durations are
/// ``Quantity/duration(_:)-(Double?)``, as everywhere).
enum TableText {
    static func pad(_ text: String, _ width: Int, right: Bool = true) -> String {
        let text = DisplayWidth.truncate(text, to: width)
        let gap = String(repeating: " ", count: max(0, width - DisplayWidth.of(text)))
        return right ? gap + text : text + gap
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
