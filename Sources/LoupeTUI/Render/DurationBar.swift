/// A horizontal bar of `width` cells, filled to `value / maximum` in eighths of a cell (htop's meters).
enum DurationBar {
    private static let partials: [Character] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉"]

    /// Empty unless both numbers are finite and positive (a store may hold any number).
    static func text(value: Double, maximum: Double, width: Int) -> String {
        guard width > 0, maximum.isFinite, value.isFinite, maximum > 0, value > 0 else { return "" }
        let eighths = max(1, Int(saturating: min(value / maximum, 1) * Double(width) * 8))
        var bar = String(repeating: "█", count: eighths / 8)
        if eighths % 8 > 0 { bar.append(partials[eighths % 8 - 1]) }
        return bar
    }
}
