import Foundation
import LoupeTrace

/// The exchange list: column headings, one row per exchange, the selected row highlighted.
struct ListView {
    let state: InspectorState

    func render(into buffer: inout Buffer) {
        let layout = state.layout
        let columns = ListColumns(width: layout.size.width)
        renderHeader(columns, row: layout.listHeader.y, into: &buffer)
        let area = layout.listRows
        guard !state.rows.isEmpty else {
            EmptyHint(state: state).render(in: area, into: &buffer)
            return
        }
        // Bounds computed defensively: a range whose lower bound passes its upper one traps.
        let top = min(max(0, state.listTop), state.rows.count)
        let visible = top..<max(top, min(state.rows.count, top + max(0, area.height)))
        // The bars scale to the longest finite duration; a stored NaN or infinity gets no bar.
        let longest = visible.compactMap { state.rows[$0].duration }.filter(\.isFinite).max() ?? 0
        for (offset, index) in visible.enumerated() {
            let y = area.y + offset
            renderRow(state.rows[index], columns: columns, longest: longest, y: y, into: &buffer)
            if index == state.selectedIndex {
                buffer.setStyle(.selection, in: area.row(offset))
            }
        }
    }

    private func renderHeader(_ columns: ListColumns, row y: Int, into buffer: inout Buffer) {
        buffer.fill(Rect(x: 0, y: y, width: buffer.width, height: 1), style: .header)
        if let timeX = columns.timeX { buffer.write("START", x: timeX, y: y, style: .header) }
        buffer.write("METHOD", x: columns.methodX, y: y, style: .header)
        buffer.write("CODE", x: columns.statusX, y: y, style: .header)
        buffer.write("HOST / PATH", x: columns.targetX, y: y, maxWidth: columns.targetWidth, style: .header)
        buffer.writeRightAligned("DUR", maxX: columns.durationX + ListColumns.durationWidth, y: y, style: .header)
        buffer.write("TRY", x: columns.attemptsX, y: y, style: .header)
    }

    private func renderRow(_ row: TraceSummary, columns: ListColumns, longest: Double, y: Int, into buffer: inout Buffer) {
        if let timeX = columns.timeX {
            buffer.write(ClockFormat.string(row.startedAt, calendar: state.calendar), x: timeX, y: y,
                         maxWidth: ListColumns.timeWidth, style: .dim)
        }
        buffer.write(row.method.uppercased(), x: columns.methodX, y: y, maxWidth: ListColumns.methodWidth)
        let status = StatusStyle.cell(for: row)
        buffer.write(status.text, x: columns.statusX, y: y, maxWidth: ListColumns.statusWidth, style: status.style)
        buffer.write(DisplayWidth.truncate(target(of: row), to: columns.targetWidth), x: columns.targetX, y: y,
                     maxWidth: columns.targetWidth)
        if let duration = row.duration {
            buffer.writeRightAligned(QuantityFormat.short(duration), maxX: columns.durationX + ListColumns.durationWidth,
                                     y: y)
            buffer.write(DurationBar.text(value: duration, maximum: longest, width: columns.barWidth), x: columns.barX,
                         y: y, maxWidth: columns.barWidth, style: .bar)
        } else {
            buffer.writeRightAligned("…", maxX: columns.durationX + ListColumns.durationWidth, y: y, style: .dim)
        }
        if row.attemptCount > 1 {
            buffer.write("×\(row.attemptCount)", x: columns.attemptsX, y: y, maxWidth: ListColumns.attemptsWidth,
                         style: .statusClientError)
        }
        if row.replayOf != nil {
            buffer.write("↻", x: columns.replayX, y: y, style: .replay)
        }
    }

    /// Host and path, percent-decoded for reading (the buffer makes any control character visible).
    private func target(of row: TraceSummary) -> String {
        let path = row.pathAndQuery.removingPercentEncoding ?? row.pathAndQuery
        return row.host.isEmpty ? row.url : row.host + path
    }
}
