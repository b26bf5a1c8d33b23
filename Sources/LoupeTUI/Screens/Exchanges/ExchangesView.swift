import Foundation
import Loupe
import LoupeQuery
import LoupeTrace

/// Draws the exchanges list: headings (the sort column marked ↑/↓), one row per visible exchange, marks, search
/// hits, and the selected row highlighted.
struct ExchangesView {
    let window: ExchangeWindow
    let context: RenderContext

    func render(in area: Rect, into buffer: inout Buffer) {
        let columns = ExchangeColumns(width: area.width, showsSource: context.session.showsSource)
        renderHeader(columns, area: area, into: &buffer)
        let rowsArea = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 1)
        guard !window.rows.isEmpty else {
            EmptyHint(hasLoaded: window.hasLoaded, filtered: context.session.query.filter != nil,
                      markedOnly: context.session.showsMarkedOnly, link: context.link, keymap: context.keymap,
                      keyContext: .exchanges).render(in: rowsArea, into: &buffer)
            return
        }
        // The bars scale to the longest finite duration on screen; a stored NaN or infinity gets no bar.
        let longest = window.rows.compactMap(\.duration).filter(\.isFinite).max() ?? 0
        for (offset, row) in window.rows.prefix(rowsArea.height).enumerated() {
            let y = rowsArea.y + offset
            renderRow(row, columns: columns, x: area.x, longest: longest, y: y, into: &buffer)
            if offset == window.selected {
                buffer.setStyle(.selection, in: rowsArea.row(offset))
            }
            if let search = context.search {
                let target = DisplayWidth.truncate(Self.target(of: row), to: columns.targetWidth)
                highlight(search, in: target, x: area.x + columns.targetX, y: y, into: &buffer)
            }
        }
    }

    private func renderHeader(_ columns: ExchangeColumns, area: Rect, into buffer: inout Buffer) {
        let y = area.y
        buffer.fill(area.row(0), style: .header)
        let order = context.session.order
        func heading(_ text: String, _ key: ExchangeSortKey?) -> String {
            guard let key, key == order.key else { return text }
            return text + (order.descending ? "↓" : "↑")
        }
        if let timeX = columns.timeX { buffer.write(heading("START", .time), x: area.x + timeX, y: y, style: .header) }
        if let sourceX = columns.sourceX {
            buffer.write("SOURCE", x: area.x + sourceX, y: y, maxWidth: ExchangeColumns.sourceWidth, style: .header)
        }
        buffer.write("METHOD", x: area.x + columns.methodX, y: y, style: .header)
        buffer.write(heading("CODE", .status), x: area.x + columns.statusX, y: y, style: .header)
        let target = order.key == .host ? heading("HOST", .host) + " / PATH"
            : order.key == .operation ? "HOST / PATH  " + heading("by operation", .operation) : "HOST / PATH"
        // `CODE↑` fills the status column and its gap: the target heading moves over one, so they do not touch.
        let shift = order.key == .status ? 1 : 0
        buffer.write(target, x: area.x + columns.targetX + shift, y: y, maxWidth: columns.targetWidth - shift, style: .header)
        if let sizeX = columns.sizeX {
            buffer.writeRightAligned(heading("SIZE", .size), maxX: area.x + sizeX + ExchangeColumns.sizeWidth, y: y, style: .header)
        }
        buffer.writeRightAligned(heading("DUR", .duration), maxX: area.x + columns.durationX + ExchangeColumns.durationWidth,
                                 y: y, style: .header)
        buffer.write("TRY", x: area.x + columns.attemptsX, y: y, style: .header)
    }

    private func renderRow(_ row: TraceSummary, columns: ExchangeColumns, x: Int, longest: Double, y: Int,
                           into buffer: inout Buffer) {
        if context.session.marks.contains(row.id) { buffer.write("●", x: x + columns.markX, y: y, style: .mark) }
        // Drift from the OpenAPI contract (`--openapi`), in the gap beside the mark: both can show.
        if context.contract?.drifts(row.id) == true {
            buffer.write(ExchangeColumns.driftGlyph, x: x + columns.markX + ExchangeColumns.markWidth, y: y, style: .error)
        }
        if let timeX = columns.timeX {
            buffer.write(Quantity.clock(row.startedAt, calendar: context.calendar), x: x + timeX, y: y,
                         maxWidth: ExchangeColumns.timeWidth, style: .dim)
        }
        if let sourceX = columns.sourceX {
            // The app's name comes from the peer: the buffer makes control characters visible; in-process is "·".
            buffer.write(row.sourceApp.map { DisplayWidth.truncate($0, to: ExchangeColumns.sourceWidth) } ?? "·",
                         x: x + sourceX, y: y, maxWidth: ExchangeColumns.sourceWidth, style: .dim)
        }
        buffer.write(row.method.uppercased(), x: x + columns.methodX, y: y, maxWidth: ExchangeColumns.methodWidth)
        let status = StatusStyle.cell(for: row)
        buffer.write(status.text, x: x + columns.statusX, y: y, maxWidth: ExchangeColumns.statusWidth, style: status.style)
        let stream = row.openedStream
        // A stream's counts and ending close the target column when there is room for them and some of the path.
        // Else the operation when the path does not tell it: a GraphQL call's (every one is `POST /graphql`), or the
        // contract's `operationId` (`--openapi`).
        // A long name is cut so that some of the path stays.
        let named = (stream == nil ? Self.operationLabel(row, contract: context.contract) : nil)
            .map { DisplayWidth.truncate(TerminalText.line($0), to: columns.targetWidth - 13) }
        let listing = (stream.map(\.listing) ?? named).flatMap { DisplayWidth.of($0) + 12 <= columns.targetWidth ? $0 : nil }
        let targetWidth = columns.targetWidth - (listing.map { DisplayWidth.of($0) + 1 } ?? 0)
        let target = DisplayWidth.truncate(Self.target(of: row), to: targetWidth)
        buffer.write(target, x: x + columns.targetX, y: y, maxWidth: targetWidth)
        if let listing {
            buffer.writeRightAligned(listing, maxX: x + columns.targetX + columns.targetWidth, y: y,
                                     style: stream?.ending == "cut" ? .error : stream == nil ? .normal : .dim)
        }
        // A stream's size is its messages' bytes (its body is empty or only the raw events' first bytes).
        if let sizeX = columns.sizeX, let size = stream?.byteCount ?? row.responseBodySize {
            buffer.writeRightAligned(Quantity.bytes(size), maxX: x + sizeX + ExchangeColumns.sizeWidth, y: y, style: .dim)
        }
        let durationEnd = x + columns.durationX + ExchangeColumns.durationWidth
        if let duration = row.duration {
            buffer.writeRightAligned(Quantity.duration(duration), maxX: durationEnd, y: y)
            buffer.write(DurationBar.text(value: duration, maximum: longest, width: columns.barWidth), x: x + columns.barX,
                         y: y, maxWidth: columns.barWidth, style: .bar)
        } else {
            buffer.writeRightAligned("…", maxX: durationEnd, y: y, style: .dim)
        }
        if row.attemptCount > 1 {
            buffer.write(Quantity.count(row.attemptCount, prefix: "×", fitting: ExchangeColumns.attemptsWidth), x: x + columns.attemptsX, y: y, maxWidth: ExchangeColumns.attemptsWidth,
                         style: .statusClientError)
        }
        if row.replayOf != nil { buffer.write("↻", x: x + columns.replayX, y: y, style: .replay) }
    }

    /// Marks where the search text occurs in the drawn target (which holds only single-width characters when
    /// the offsets line up; otherwise nothing is marked rather than the wrong cells).
    private func highlight(_ search: String, in text: String, x: Int, y: Int, into buffer: inout Buffer) {
        guard DisplayWidth.of(text) == text.count else { return }
        for range in ExchangeSearch.ranges(of: search, in: text) {
            buffer.setStyle(.searchHit, in: Rect(x: x + range.lowerBound, y: y, width: range.count, height: 1))
        }
    }

    /// The operation shown beside the path: a GraphQL operation's name, else the contract's `operationId`.
    static func operationLabel(_ row: TraceSummary, contract: ContractChecks?) -> String? {
        if GraphQLOperation.isName(row.operation) { return row.operation }
        return contract?.operation(of: row.id)
    }

    /// Host and path, percent-decoded for reading (the buffer makes any control character visible).
    static func target(of row: TraceSummary) -> String {
        let path = row.pathAndQuery.removingPercentEncoding ?? row.pathAndQuery
        return row.host.isEmpty ? row.url : row.host + path
    }
}
