import Foundation
import Loupe
import LoupeTrace
import LoupeBoard

/// The selected key under the board: its last transition (when, from → to, why), Envoy's retry figures, and
/// the two-minute chart, requests stacked on failures, in eighth blocks over the remaining rows.
struct BreakerPanel {
    let row: BreakerRow
    let now: Date

    func render(in area: Rect, into buffer: inout Buffer) {
        guard area.height > 0 else { return }
        buffer.fill(area.row(0), with: "─", style: .dim)
        buffer.write(" \(row.key) ", x: area.x + 1, y: area.y, maxWidth: area.width - 2, style: .label)
        var lines: [(String, Style)] = []
        if let last = row.lastTransition {
            let ago = Quantity.age(now.timeIntervalSince(last.at))
            lines.append(("last: \(last.from) → \(last.to), \(ago): \(last.reason)", CircuitsView.style(last.state ?? .closed)))
        } else {
            lines.append(("last: no transition recorded", .dim))
        }
        let thresholds = row.thresholds
        let window = thresholds.windowCalls.map { "last \($0) calls" } ?? thresholds.windowSeconds.map { "last \($0)s" } ?? "?"
        let figures = ["retries \(row.retries)", "denied by budget \(row.budgetDenied)",
                       "retried then succeeded \(row.retrySucceeded)",
                       "window \(window), min \(thresholds.minimumCalls)\(thresholds.isRecorded ? "" : " (defaults assumed)")"]
        lines += Self.joined(figures, width: area.width - 2).map { ($0, .normal) }
        for (offset, line) in lines.prefix(area.height - 1).enumerated() {
            buffer.write(line.0, x: area.x + 1, y: area.y + 1 + offset, maxWidth: area.width - 2, style: line.1)
        }
        let chartRows = area.height - 1 - lines.count
        guard chartRows > 0 else { return }
        drawChart(Rect(x: area.x + 1, y: area.y + 1 + lines.count, width: area.width - 2, height: chartRows), into: &buffer)
    }

    /// The figures joined by ` · ` into lines at most `width` wide, breaking only between figures, so a narrow
    /// screen shows every figure whole instead of cutting the last ones off.
    static func joined(_ figures: [String], width: Int) -> [String] {
        var lines: [String] = []
        for figure in figures {
            if let last = lines.last, DisplayWidth.of(last) + 3 + DisplayWidth.of(figure) <= width {
                lines[lines.count - 1] = last + " · " + figure
            } else {
                lines.append(figure)
            }
        }
        return lines
    }

    /// Columns of eighth blocks `rows` high: the failure part (red) at the bottom, the rest (green) above it.
    private func drawChart(_ rect: Rect, into buffer: inout Buffer) {
        let requests = EighthBlocks.resample(row.series.map { Double($0.requests) }, into: rect.width)
        let failures = EighthBlocks.resample(row.series.map { Double($0.failures) }, into: rect.width)
        let top = requests.max() ?? 0
        guard top > 0 else {
            buffer.write("no calls in the last 2 minutes", x: rect.x, y: rect.y + rect.height - 1, maxWidth: rect.width, style: .dim)
            return
        }
        let levels = Double(rect.height * 8)
        for column in requests.indices {
            let total = requests[column] > 0 ? max(1, Int((requests[column] / top * levels).rounded())) : 0
            let failed = failures[column] > 0 ? max(1, Int((failures[column] / top * levels).rounded())) : 0
            for level in 0..<rect.height {
                let filled = min(8, max(0, total - level * 8))
                guard filled > 0 else { break }
                let style: Style = failed > level * 8 ? .statusServerError : .statusSuccess
                buffer.write(String(EighthBlocks.rising[filled - 1]), x: rect.x + column, y: rect.y + rect.height - 1 - level, style: style)
            }
        }
    }
}
