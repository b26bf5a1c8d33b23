import Foundation
import Loupe
import LoupeTrace
import LoupeBoard

/// Under the metrics table, for each operation that streamed in the window: how many streams, the time to the
/// first message (p50, p95), messages per second while receiving, and the gap between messages (p50, p95): what a
/// model-API user calls time to first token and tokens per second.
struct MetricsStreamsTable {
    /// The rows of operations with streams, in the table's order.
    let rows: [MetricsRow]
    let nameWidth: Int
    /// The search to highlight in the name column.
    var search: String?

    static let columns: [(String, Int)] = [
        ("COUNT", 7), ("FIRST P50", 9), ("FIRST P95", 9), ("MSG/S", 7), ("GAP P50", 8), ("GAP P95", 8),
    ]

    /// The operations of `rows` that streamed.
    static func streaming(_ rows: [MetricsRow]) -> [MetricsRow] {
        rows.filter { row in
            guard case .operation = row.group else { return false }
            return (row.streams?.streams ?? 0) > 0
        }
    }

    /// The heading and a line per row, as many as `area` holds.
    func render(in area: Rect, into buffer: inout Buffer) {
        guard area.height > 1, !rows.isEmpty else { return }
        buffer.fill(area.row(0), style: .header)
        var header = TableText.pad("STREAMS", nameWidth, right: false)
        for (title, width) in Self.columns { header += " " + TableText.pad(title, width) }
        buffer.write(header, x: area.x, y: area.y, maxWidth: area.width, style: .header)
        for (offset, row) in rows.prefix(area.height - 1).enumerated() {
            let y = area.y + 1 + offset
            guard let figures = row.streams else { continue }
            let first = figures.firstMessage.percentiles([50, 95])
            let gaps = figures.gaps.percentiles([50, 95])
            var x = buffer.write(TableText.pad(MetricsView.name(row.group), nameWidth, right: false), x: area.x, y: y)
            let cells = [
                Quantity.count(figures.streams), Quantity.duration(first[0]), Quantity.duration(first[1]),
                figures.messagesPerSecond.map(TableText.rate) ?? "—", Quantity.duration(gaps[0]), Quantity.duration(gaps[1]),
            ]
            for (text, column) in zip(cells, Self.columns) {
                x = buffer.write(" " + TableText.pad(text, column.1), x: x, y: y)
            }
            RowSearch.highlight(search, in: MetricsView.name(row.group), x: area.x, y: y, maxX: area.x + nameWidth, into: &buffer)
        }
    }
}
