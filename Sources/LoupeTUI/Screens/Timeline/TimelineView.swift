import Foundation
import Loupe
import LoupeQuery
import LoupeTrace

/// Draws the timeline: an axis heading (the left edge's clock time, offsets at quarters), one row per visible
/// exchange (status and request on the left, its attempts on the shared axis in eighth blocks, a stream's messages as
/// ticks over its bar), and a legend.
struct TimelineView {
    let window: ExchangeWindow
    let axis: TimelineAxis
    let tracks: [UUID: TimelineTrack]
    let context: RenderContext

    static let backoff: Character = "┈"

    func render(in area: Rect, into buffer: inout Buffer) {
        guard area.height > 2, area.width > 20 else { return }
        let labelWidth = max(16, min(34, area.width / 3))
        let barX = area.x + labelWidth + 1
        let cells = area.maxX - barX
        renderAxis(in: area, labelWidth: labelWidth, barX: barX, cells: cells, into: &buffer)
        let rowsArea = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 2)
        renderLegend(y: area.maxY - 1, area: area, into: &buffer)
        guard !window.rows.isEmpty else {
            EmptyHint(hasLoaded: window.hasLoaded, filtered: context.session.query.filter != nil,
                      markedOnly: context.session.showsMarkedOnly, keymap: context.keymap, keyContext: .timeline)
                .render(in: rowsArea, into: &buffer)
            return
        }
        for (offset, row) in window.rows.prefix(rowsArea.height).enumerated() {
            let y = rowsArea.y + offset
            renderLabel(row, x: area.x, y: y, width: labelWidth, into: &buffer)
            if offset == window.selected {
                buffer.setStyle(.selection, in: Rect(x: area.x, y: y, width: labelWidth, height: 1))
            }
            buffer.write("│", x: barX - 1, y: y, style: .dim)
            if let track = tracks[row.id] {
                renderTrack(track, barX: barX, cells: cells, y: y, into: &buffer)
            }
        }
    }

    private func renderAxis(in area: Rect, labelWidth: Int, barX: Int, cells: Int, into buffer: inout Buffer) {
        buffer.fill(area.row(0), style: .header)
        buffer.write(Quantity.clock(axis.start, calendar: context.calendar), x: area.x, y: area.y,
                     maxWidth: labelWidth, style: .header)
        guard cells > 8 else { return }
        // A label every quarter of the span, while they fit side by side.
        let quarters = cells >= 48 ? 4 : 2
        var labelsEnd = barX
        for index in 0..<quarters {
            let x = barX + index * cells / quarters
            let offset = index == 0 ? "0" : Quantity.span(axis.span * Double(index) / Double(quarters))
            labelsEnd = buffer.write("┊+" + offset, x: x, y: area.y, maxWidth: area.maxX - x, style: .header)
        }
        let span = "span " + Quantity.span(axis.span)
        if labelsEnd + 2 + DisplayWidth.of(span) <= area.maxX {
            buffer.writeRightAligned(span, maxX: area.maxX, y: area.y, style: .header)
        }
    }

    private func renderLabel(_ row: TraceSummary, x: Int, y: Int, width: Int, into buffer: inout Buffer) {
        if context.session.marks.contains(row.id) { buffer.write("●", x: x, y: y, style: .mark) }
        let status = StatusStyle.cell(for: row)
        buffer.write(TableText.pad(status.text, 4, right: false), x: x + 1, y: y, style: status.style)
        let request = row.method.uppercased() + " " + (row.pathAndQuery.removingPercentEncoding ?? row.pathAndQuery)
        buffer.write(request, x: x + 6, y: y, maxWidth: max(0, width - 6))
    }

    /// Gaps first, attempts over them, marks on top; an exchange wholly off the axis gets an arrow at that end.
    private func renderTrack(_ track: TimelineTrack, barX: Int, cells: Int, y: Int, into buffer: inout Buffer) {
        guard cells > 0 else { return }
        for gap in track.gaps {
            let from = max(0, Int(axis.column(gap.from, cells: cells).rounded()))
            let to = min(cells, Int(axis.column(gap.to, cells: cells).rounded()))
            if from < to {
                buffer.write(String(repeating: Self.backoff, count: to - from), x: barX + from, y: y, style: .dim)
            }
        }
        var drawn = false
        var before = false, after = false
        for segment in track.segments {
            let from = axis.column(segment.from, cells: cells)
            let to = axis.column(segment.to ?? max(segment.from, context.now), cells: cells)
            if to < 0 { before = true }
            if from >= Double(cells) { after = true }
            for (x, character) in EighthBlocks.span(from: from, to: to, cells: cells) {
                buffer.write(String(character), x: barX + x, y: y, style: segment.style)
                drawn = true
            }
        }
        if track.hasMessages {
            // A tick per cell holding messages (many in one cell make one), over the bar: the cell's time range
            // is asked of the track, never each message placed.
            let cellSeconds = axis.span / Double(cells)
            for x in 0..<cells {
                let from = axis.start.addingTimeInterval(Double(x) * cellSeconds)
                guard let tick = track.tick(from: from, to: from.addingTimeInterval(cellSeconds)) else { continue }
                buffer.write(String(tick), x: barX + x, y: y, style: .label)
                drawn = true
            }
        }
        for placed in track.marks {
            let column = axis.column(placed.at, cells: cells)
            guard column >= 0, column < Double(cells) else { continue }
            let x = min(cells - 1, Int(column))
            buffer.write(String(placed.mark.character), x: barX + x, y: y, style: placed.mark.style)
            drawn = true
        }
        if !drawn, after { buffer.write("▸", x: barX + cells - 1, y: y, style: .dim) }
        if !drawn, before, !after { buffer.write("◂", x: barX, y: y, style: .dim) }
    }

    private func renderLegend(y: Int, area: Rect, into buffer: inout Buffer) {
        let entries: [(String, Style)] = [
            ("█ 2xx", .statusSuccess), ("█ 4xx", .statusClientError), ("█ 5xx", .statusServerError),
            ("✕ error", .error), ("⊘ refused by breaker", .statusClientError), ("┈ backoff", .dim),
        ]
        var x = area.x + 1
        let streams = window.rows.prefix(area.height).contains { tracks[$0.id]?.hasMessages == true }
        var shown = entries
        if streams { shown.insert(("↑↓ message", .label), at: 4) }
        for (text, style) in shown where x + DisplayWidth.of(text) < area.maxX {
            x = buffer.write(text, x: x, y: y, style: style) + 2
        }
        if context.session.follow, x + 8 < area.maxX {
            buffer.writeRightAligned("following", maxX: area.maxX, y: y, style: .dim)
        }
    }
}
