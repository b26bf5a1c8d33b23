import Foundation
import Loupe
import LoupeTrace
import LoupeBoard

/// Under the table: the selected row's rate and p95 across the window (one cell per slot, eighth blocks), then
/// its latency histogram as horizontal eighth-block bars.
struct MetricsPanel {
    let row: MetricsRow
    let window: MetricsWindow

    func render(in area: Rect, into buffer: inout Buffer) {
        buffer.fill(area.row(0), with: "─", style: .dim)
        buffer.write(" \(MetricsView.name(row.group)) · \(Quantity.count(row.counts.requests, "exchange")) in \(window.rawValue) ",
                     x: area.x + 1, y: area.y, maxWidth: area.width - 2, style: .label)
        guard area.height > 2 else { return }
        let sparkWidth = max(0, min(row.rateSeries.count, area.width - 12))
        let rate = EighthBlocks.sparkline(EighthBlocks.resample(row.rateSeries, into: sparkWidth))
        buffer.write("rate      ", x: area.x + 1, y: area.y + 1, style: .dim)
        buffer.write(String(rate), x: area.x + 11, y: area.y + 1, style: .statusSuccess)
        let p95 = EighthBlocks.sparkline(row.p95Series.suffix(sparkWidth).map { $0 ?? 0 })
        buffer.write("p95       ", x: area.x + 1, y: area.y + 2, style: .dim)
        buffer.write(String(p95), x: area.x + 11, y: area.y + 2, style: .statusClientError)
        let bars = area.height - 3
        guard bars > 0 else { return }
        let bins = row.latency.bins(bars)
        let most = bins.map(\.count).max() ?? 0
        for (offset, bin) in bins.enumerated() {
            let y = area.y + 3 + offset
            let label = "≤" + Quantity.duration(bin.upTo)
            buffer.write(TableText.pad(label, 9), x: area.x + 1, y: y, style: .dim)
            let width = max(0, area.width - 20)
            let bar = most > 0 ? EighthBlocks.bar(Double(bin.count) / Double(most), width: width) : ""
            let end = buffer.write(bar, x: area.x + 11, y: y, style: .bar)
            buffer.write(" \(bin.count)", x: end, y: y, style: .dim)
        }
    }
}
