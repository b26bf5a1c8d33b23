import Foundation
import Loupe
import LoupeTrace
import LoupeBoard

/// Draws the metrics table, the streams of the operations that streamed, and under them the selected row's rate and
/// p95 sparklines and latency histogram.
struct MetricsView {
    let rows: [MetricsRow]
    let selected: Int
    let window: MetricsWindow
    let sort: MetricsColumn
    let descending: Bool
    /// The search to highlight in the name column.
    var search: String?
    /// The key that cycles the window, for the hint of an empty one.
    var windowKey = "w"

    private static let columns: [(MetricsColumn, String, Int)] = [
        (.rate, "RATE", 7), (.errors, "ERR%", 6), (.retries, "RETRY%", 7), (.denied, "DENIED", 6),
        (.p50, "P50", 7), (.p95, "P95", 7), (.p99, "P99", 7), (.max, "MAX", 7),
    ]

    static func name(_ group: TraceStats.Group) -> String {
        switch group {
        case .all: "all"
        case .operation(let name): "op " + TerminalText.line(name)
        case .host(let host): "host " + TerminalText.line(host)
        }
    }

    func render(in area: Rect, into buffer: inout Buffer) {
        guard area.height > 2 else { return }
        let fixed = Self.columns.reduce(0) { $0 + $1.2 + 1 }
        let nameWidth = max(12, min(36, area.width - fixed - 1))
        buffer.fill(area.row(0), style: .header)
        func mark(_ column: MetricsColumn) -> String { sort == column ? (descending ? "↓" : "↑") : "" }
        var header = TableText.pad("NAME" + mark(.name) + " (window \(window.rawValue))", nameWidth, right: false)
        for (column, title, width) in Self.columns { header += " " + TableText.pad(title + mark(column), width) }
        buffer.write(header, x: area.x, y: area.y, maxWidth: area.width, style: .header)
        guard MetricsScreen.hasExchanges(rows) else {
            let hint = window == .all ? "No exchanges recorded (with this filter) yet."
                : "No exchanges in the last \(window.rawValue): \(windowKey) widens the window."
            buffer.write(hint, x: area.x + 1, y: area.y + 2, maxWidth: area.width - 2, style: .dim)
            return
        }
        let panelHeight = area.height >= 16 ? 8 : 4
        // Operations that streamed get a table of their own under this one, at most half the room left.
        let streaming = MetricsStreamsTable.streaming(rows)
        let streamsHeight = streaming.isEmpty ? 0 : min(2 + streaming.count, max(0, (area.height - 1 - panelHeight) / 2))
        let tableHeight = max(1, area.height - 1 - panelHeight - streamsHeight)
        let first = max(0, min(selected - tableHeight + 1, rows.count - tableHeight))
        for (offset, row) in rows.dropFirst(first).prefix(tableHeight).enumerated() {
            let y = area.y + 1 + offset
            var x = buffer.write(TableText.pad(Self.name(row.group), nameWidth, right: false), x: area.x, y: y,
                                 style: row.group == .all ? .label : .normal)
            let cells: [(String, Style)] = [
                (TableText.rate(row.rate), .normal),
                (TableText.percent(row.counts.errorRate * 100), Self.threshold(row.counts.errorRate, warn: 0.01, bad: 0.05)),
                (TableText.percent(row.counts.retryRate * 100), Self.threshold(row.counts.retryRate, warn: 0.05, bad: 0.2)),
                (String(row.counts.budgetDenied), row.counts.budgetDenied > 0 ? .statusClientError : .normal),
                (Quantity.duration(row.p50), .normal),
                (Quantity.duration(row.p95), Self.threshold(row.p95 ?? 0, warn: 0.5, bad: 1)),
                (Quantity.duration(row.p99), Self.threshold(row.p99 ?? 0, warn: 1, bad: 2)),
                (Quantity.duration(row.max), .normal),
            ]
            for ((text, style), column) in zip(cells, Self.columns) {
                x = buffer.write(" " + TableText.pad(text, column.2), x: x, y: y, style: style)
            }
            if first + offset == selected { buffer.setStyle(.selection, in: Rect(x: area.x, y: y, width: x - area.x, height: 1)) }
            RowSearch.highlight(search, in: Self.name(row.group), x: area.x, y: y, maxX: area.x + nameWidth, into: &buffer)
        }
        if streamsHeight > 2 {
            // One blank line between the tables.
            let y = area.y + 1 + min(tableHeight, rows.count) + 1
            MetricsStreamsTable(rows: streaming, nameWidth: nameWidth, search: search)
                .render(in: Rect(x: area.x, y: y, width: area.width, height: streamsHeight - 1), into: &buffer)
        }
        if rows.indices.contains(selected) {
            let panel = Rect(x: area.x, y: area.y + area.height - panelHeight, width: area.width, height: panelHeight)
            MetricsPanel(row: rows[selected], window: window).render(in: panel, into: &buffer)
        }
    }

    /// Red at `bad` or over, yellow at `warn` or over.
    static func threshold(_ value: Double, warn: Double, bad: Double) -> Style {
        value >= bad ? .statusServerError : value >= warn ? .statusClientError : .normal
    }
}
