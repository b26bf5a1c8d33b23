/// Sub-cell drawing with Unicode eighth blocks (k9s pulses, btop): a column's height or a bar's length in
/// eighths of a cell, so a value an eighth of a cell long still shows.
enum EighthBlocks {
    /// ▁ to █: one to eight eighths of a cell's height.
    static let rising: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    /// ▏ to █: one to eight eighths of a cell's width.
    static let widening: [Character] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"]

    /// One cell per value, heights scaled so `maximum` fills the cell; a value above zero shows at least ▁.
    static func sparkline(_ values: [Double], maximum: Double? = nil) -> [Character] {
        let top = maximum ?? values.max() ?? 0
        return values.map { value in
            guard value.isFinite, value > 0, top > 0 else { return " " }
            let eighths = Int((min(value / top, 1) * 8).rounded(.up))
            return rising[max(1, min(8, eighths)) - 1]
        }
    }

    /// A horizontal bar of `fraction` of `width` cells: whole cells then the partial one; above zero shows ▏.
    static func bar(_ fraction: Double, width: Int) -> String {
        guard width > 0, fraction.isFinite, fraction > 0 else { return "" }
        let eighths = max(1, Int((min(fraction, 1) * Double(width * 8)).rounded()))
        let partial = eighths % 8
        return String(repeating: "█", count: eighths / 8) + (partial > 0 ? String(widening[partial - 1]) : "")
    }

    /// Groups `values` into `cells` columns (each the sum of its share), oldest first.
    static func resample(_ values: [Double], into cells: Int) -> [Double] {
        guard cells > 0, !values.isEmpty else { return [] }
        if values.count <= cells { return values }
        return (0..<cells).map { cell in
            let start = cell * values.count / cells
            let end = (cell + 1) * values.count / cells
            return values[start..<max(start + 1, end)].reduce(0, +)
        }
    }

    /// The cells a span from `from` to `to` (in cells, fractions allowed) covers, each with its block: whole
    /// cells █, the cell it ends in a left-anchored block as wide as the part (`▏`…`▉`), the cell it begins in
    /// `▕`/`▐` (the only right-anchored blocks). A span narrower than an eighth is widened to one, so it shows.
    static func span(from: Double, to: Double, cells: Int) -> [(x: Int, character: Character)] {
        guard cells > 0, from.isFinite, to.isFinite, to >= 0, from < Double(cells) else { return [] }
        var low = max(0, from), high = min(Double(cells), max(to, from))
        if high - low < 1.0 / 8 {
            high = min(Double(cells), low + 1.0 / 8)
            low = max(0, high - 1.0 / 8)
        }
        var result: [(x: Int, character: Character)] = []
        for cell in Int(low.rounded(.down))..<Int(high.rounded(.up)) {
            let left = Double(cell), right = left + 1
            let cover = min(high, right) - max(low, left)
            // Less than half an eighth is a rounding sliver of the neighbouring cell's block, not a part of its own.
            guard cover * 16 >= 1 else { continue }
            let eighths = max(1, min(8, Int((cover * 8).rounded())))
            if eighths == 8 {
                result.append((cell, "█"))
            } else if low > left, high >= right {
                result.append((cell, eighths >= 6 ? "█" : eighths >= 3 ? "▐" : "▕"))
            } else {
                result.append((cell, widening[eighths - 1]))
            }
        }
        return result
    }
}
